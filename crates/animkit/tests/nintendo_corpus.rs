//! Every Nintendo file of the corpus (`nintendo/`: archives as shipped, Switch and Wii U;
//! `bfres/`: Breath of the Wild) read as a modder opens it, through the registry: it writes
//! back byte for byte, `info` names the skeleton its animations bind to with its bone count,
//! and its GLB keeps that skeleton (no flat nodes) and passes the Khronos validator.
//!
//! The expected skeletons come from an independent parse of the files (a short Python reading
//! of the FMDL/FSKL and FSKA layouts described in `formats/bfres/fskl.rs`), not from animkit.

mod common;

use std::path::PathBuf;

use animkit::convert::{prepare, ConvertOptions, Destination};
use animkit::{Bytes, ErrorKind, ReadOptions};

/// What a corpus file is expected to hold.
#[derive(Debug, Clone, Copy)]
enum Holds {
    /// The skeleton of this model with this many bones, and how many distinct bone-animation
    /// targets are not among its bones.
    Skeleton { model: &'static str, bones: usize, unbound: usize },
    /// Animations but no model: the skeleton is in another file (`--skeleton`).
    NoSkeleton,
    /// A Zstandard frame that needs a dictionary the corpus does not hold (Tears of the Kingdom's
    /// `ZsDic.pack.zs`): reading must fail as unsupported, naming the dictionary to pass.
    /// `tests/zstd_container.rs` reads it when the dictionary is given.
    NeedsDictionary,
}

/// Every file of the two folders (a file missing here fails the test).
const FILES: &[(&str, &str, Holds)] = &[
    ("nintendo", "mk8_bodyb_ysi_3404_multimodel.szs", Holds::Skeleton { model: "BodyB_Ysi", bones: 7, unbound: 0 }),
    ("nintendo", "s2_wsp_bubble_fska_fmaa.szs", Holds::Skeleton { model: "Wsp_Bubble", bones: 7, unbound: 0 }),
    ("nintendo", "smo_mariocap_bonevis.szs", Holds::NoSkeleton),
    ("nintendo", "totk_armor_pack_zstd.pack.zs", Holds::NeedsDictionary),
    ("bfres", "Animal_Bass.bfres", Holds::Skeleton { model: "Bass", bones: 6, unbound: 0 }),
    // The animations also move Chin, Arm_1_L, Arm_1_R and Tail, which the bass skeleton lacks.
    ("bfres", "Animal_Bass_Animation.bfres", Holds::Skeleton { model: "Skeleton", bones: 6, unbound: 4 }),
    ("bfres", "Animal_Bass_Animation.sbfres", Holds::Skeleton { model: "Skeleton", bones: 6, unbound: 4 }),
    ("bfres", "Npc_Gerudo_Queen_Animation.bfres", Holds::Skeleton { model: "Skeleton", bones: 135, unbound: 0 }),
];

/// The corpus files with what they hold; empty (after saying so) without a corpus.
fn files() -> Vec<(PathBuf, Vec<u8>, Holds)> {
    let mut out = Vec::new();
    for folder in ["nintendo", "bfres"] {
        let Some(dir) = common::corpus_dir(folder) else { return Vec::new() };
        for (name, data) in common::corpus_files(folder) {
            let holds = FILES
                .iter()
                .find(|f| f.0 == folder && f.1 == name)
                .unwrap_or_else(|| panic!("{folder}/{name} is new: add it to FILES"))
                .2;
            out.push((dir.join(&name), data, holds));
        }
    }
    out
}

fn read(path: &std::path::Path, data: &[u8], options: &ReadOptions) -> animkit::Result<Box<dyn animkit::Document>> {
    animkit::read(Bytes::from(data.to_vec()), Some(path), options)
}

#[test]
fn every_file_writes_back_and_reports_its_skeleton() {
    for (path, data, holds) in files() {
        let name = path.display();
        let doc = match (read(&path, &data, &ReadOptions::default()), holds) {
            (Err(e), Holds::NeedsDictionary) if e.kind == ErrorKind::Unsupported => {
                assert!(
                    e.to_string().contains("zstd_dict"),
                    "{name}: the error does not say how to pass the dictionary: {e}"
                );
                continue;
            }
            (Err(e), _) => panic!("{name}: {e}"),
            (Ok(_), Holds::NeedsDictionary) => panic!("{name} reads without a dictionary: say what it holds in FILES"),
            (Ok(doc), _) => doc,
        };
        assert!(doc.write().unwrap() == data, "{name}: write differs from the bytes read");
        let notes = doc.notes();
        let bones = doc.summary().unwrap().skeleton_bones;
        match holds {
            Holds::Skeleton { model, bones: n, .. } => {
                let said = format!("skeleton: model \"{model}\", {n} bones");
                assert!(notes.iter().any(|note| note.contains(&said)), "{name}: no \"{said}\" in {notes:#?}");
                assert_eq!(bones, Some(n), "{name}");
            }
            Holds::NoSkeleton => {
                assert_eq!(bones, None, "{name}");
                assert!(notes.iter().any(|n| n.contains("no model with a skeleton")), "{name}: {notes:#?}");
            }
            Holds::NeedsDictionary => unreachable!(),
        }
        eprintln!("{name}: {bones:?} bones, {} bytes written back", data.len());
    }
}

#[test]
fn glb_keeps_the_skeleton_and_validates() {
    let files = files();
    let tools = common::gltf::tools();
    let dir = common::gltf::temp_dir("nintendo");
    let mut written = Vec::new();
    for (path, _, holds) in files {
        let Holds::Skeleton { unbound, .. } = holds else { continue };
        let out = dir.join(format!("{}.glb", path.file_name().unwrap().to_string_lossy()));
        let prepared = prepare(&path, &Destination::File(out.clone()), &ConvertOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let warnings: Vec<&String> =
            prepared.warnings.iter().chain(prepared.files.iter().flat_map(|f| &f.report.warnings)).collect();
        let name = path.display();
        assert!(!warnings.iter().any(|w| w.contains("flat nodes")), "{name}: {warnings:#?}");
        let roots = warnings.iter().find(|w| w.contains("not in the skeleton became root nodes"));
        match unbound {
            0 => assert!(roots.is_none(), "{name}: {roots:?}"),
            n => assert!(roots.is_some_and(|w| w.starts_with(&format!("{n} track target"))), "{name}: {roots:?}"),
        }
        let file = prepared.files.into_iter().next().unwrap();
        std::fs::write(&out, &file.data).unwrap();
        written.push(out);
    }
    let Some(tools) = tools else { return };
    let results = common::gltf::validate_clean(&tools, &written);
    eprintln!("{} GLBs: 0 validator errors and warnings", results.len());
}

/// The must-show of the model choice: Mario Kart 8's kart body binds the 7 bones of
/// `BodyB_Ysi`, the fourth model (the first three are 3-bone arms), unless `model=` says otherwise.
#[test]
fn the_mk8_animations_bind_the_body_model() {
    let Some(data) = common::corpus_file("nintendo", "mk8_bodyb_ysi_3404_multimodel.szs") else { return };
    let path = std::path::Path::new("mk8_bodyb_ysi_3404_multimodel.szs");
    let skeleton = |params: &[(&str, &str)]| {
        let params = params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let options = ReadOptions::default().with_params(params);
        read(path, &data, &options).and_then(|doc| doc.to_model()).map(|p| p.skeleton.unwrap())
    };
    let body = skeleton(&[]).unwrap();
    let names: Vec<&str> = body.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        ["Jnt_Body", "Jnt_ArmB", "Jnt_Handle", "Jnt_Parts01", "Jnt_Parts02", "Jnt_Parts03", "Jnt_Parts04"]
    );
    let arm = skeleton(&[("model", "ArmB_YsiL")]).unwrap();
    assert_eq!(arm.bones.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["ArmBL", "ArmB_B", "ArmB_F"]);
    let e = skeleton(&[("model", "Kart")]).unwrap_err();
    assert!(e.message.contains("models: ArmB_YsiL, ArmB_YsiM, ArmB_YsiS, BodyB_Ysi"), "{e}");
    // Its 34 bone-animation curves carry no curve bit (3.4.0.4): not a finding at that version.
    let doc = read(path, &data, &ReadOptions::default()).unwrap();
    let findings = doc.lint();
    assert!(findings.is_empty(), "{findings:#?}");
}

/// The Splatoon 2 skeleton (Switch 0.8.0.0) as an independent parse gives it: parents, Euler
/// rest rotations (radians, X first) and translations.
#[test]
fn the_switch_skeleton_has_its_hierarchy_and_rest_pose() {
    let Some(data) = common::corpus_file("nintendo", "s2_wsp_bubble_fska_fmaa.szs") else { return };
    let doc = read(std::path::Path::new("s2.szs"), &data, &ReadOptions::default()).unwrap();
    let skeleton = doc.to_model().unwrap().skeleton.unwrap();
    let parents: Vec<(&str, Option<usize>)> = skeleton.bones.iter().map(|b| (b.name.as_str(), b.parent)).collect();
    assert_eq!(
        parents,
        [
            ("root", None),
            ("bubble_root", Some(0)),
            ("bubble_1", Some(1)),
            ("bubble_2", Some(2)),
            ("bubble_3", Some(3)),
            ("bubble_4", Some(4)),
            ("muzzle", Some(4)),
        ]
    );
    let root = &skeleton.bones[1].rest;
    let t = root.translation.to_array();
    let expected_t = [0.013735253, 2.291407, -8.691278];
    assert!(t.iter().zip(expected_t).all(|(a, b)| (a - b).abs() < 1e-5), "{t:?}");
    // Euler (0, -0.6108653, π/2), X first: q = qZ·qY·qX.
    let (y, z) = (-0.610_865_3_f32, std::f32::consts::FRAC_PI_2);
    let expected = glam::Quat::from_rotation_z(z) * glam::Quat::from_rotation_y(y);
    assert!(root.rotation.dot(expected).abs() > 1.0 - 1e-6, "{:?}", root.rotation);
    assert_eq!(skeleton.bones[6].rest.translation.to_array(), [-2.4, 0.0, 0.0]);
}

/// A Switch file converted to BFRES comes out as a Wii U file: the conversion says so, and a
/// Wii U file converted to BFRES or a Switch file converted to glTF does not.
#[test]
fn writing_a_switch_file_as_bfres_writes_switch_unless_told_wii_u() {
    let (Some(nintendo), Some(bfres)) = (common::corpus_dir("nintendo"), common::corpus_dir("bfres")) else { return };
    let dir = common::gltf::temp_dir("nintendo-platform");
    let convert = |file: PathBuf, ext: &str, platform: Option<&str>| {
        let out = dir.join(format!("out.{ext}"));
        let mut options = ConvertOptions::default();
        if let Some(p) = platform {
            options.params.insert("platform".into(), p.into());
        }
        let prepared = prepare(&file, &Destination::File(out), &options).unwrap();
        let warns = prepared.warnings.iter().any(|w| w.contains("Switch BFRES") && w.contains("Wii U"));
        (warns, prepared.files[0].data.get(..8).map(<[u8]>::to_vec).unwrap_or_default())
    };
    let switch = nintendo.join("s2_wsp_bubble_fska_fmaa.szs");
    assert_eq!(convert(switch.clone(), "bfres", None), (false, b"FRES    ".to_vec()));
    let (warns, magic) = convert(switch.clone(), "bfres", Some("wiiu"));
    assert!(warns && magic.starts_with(b"FRES") && magic != b"FRES    ");
    assert!(!convert(switch, "glb", None).0);
    let (warns, magic) = convert(bfres.join("Animal_Bass_Animation.bfres"), "bfres", None);
    assert!(!warns && magic != b"FRES    ");
}
