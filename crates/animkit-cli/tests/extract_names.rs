//! `extract` writes every asset exactly once: repeated, colliding and unsafe names are planned
//! before the first write, folders in SARC member names become folders, and renamings are reported.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use animkit::containers::sarc;
use animkit::model::{BoneRef, Clip, Interpolation, Package, Target, Track, Values};
use common::{animkit, code, ok, temp_dir};

/// Every file below `dir`, by its path relative to `dir` (with `/`), with its bytes.
fn files_below(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().map(Result::unwrap) {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

fn sarc_file(dir: &Path, members: &[(&str, &[u8])]) -> String {
    let members: Vec<(String, Vec<u8>)> = members.iter().map(|(n, d)| (n.to_string(), d.to_vec())).collect();
    let bytes = sarc::write(&sarc::build(&members, animkit::bytes::Endian::Big).unwrap());
    let path = dir.join("test.sarc");
    std::fs::write(&path, bytes).unwrap();
    path.display().to_string()
}

#[test]
fn colliding_sarc_names_are_all_written_once() {
    let dir = temp_dir("extract-collide");
    let members: &[(&str, &[u8])] = &[
        ("Actor/Pack/x.bin", b"one"),
        ("Actor/Pack/x.bin", b"two"),
        ("actor/pack/X.BIN", b"three"),
        ("member_0", b"four"),
        ("Actor", b"five"),
        ("../escape.bin", b"six"),
    ];
    let archive = sarc_file(&dir, members);
    let out = dir.join("out");
    let err = ok(&animkit(&["extract", &archive, "-o", &out.display().to_string()]));
    let written = files_below(&out);
    let mut contents: Vec<&[u8]> = written.values().map(Vec::as_slice).collect();
    contents.sort();
    let mut expected: Vec<&[u8]> = members.iter().map(|m| m.1).collect();
    expected.sort();
    assert_eq!(contents, expected, "every member once: {written:?}");
    assert!(written.keys().all(|k| !k.contains("..")), "{written:?}");
    assert!(written.contains_key("__/escape.bin"), "{written:?}");
    assert!(!dir.join("escape.bin").exists());
    // Folder names are compared without case: the three x.bin share one folder.
    let lower: std::collections::BTreeSet<String> = written.keys().map(|k| k.to_lowercase()).collect();
    assert_eq!(lower.len(), members.len(), "{written:?}");
    assert!(err.contains("3 asset names repeat an earlier name"), "{err}");
    assert!(err.contains("1 asset names were unsafe as paths"), "{err}");
    assert!(err.contains("6 assets written"), "{err}");
}

#[test]
fn extraction_through_a_planted_link_writes_nothing() {
    let dir = temp_dir("extract-link");
    let archive = sarc_file(&dir, &[("a.bin", b"first"), ("sub/b.bin", b"second")]);
    let out = dir.join("out");
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&elsewhere, out.join("sub")).unwrap();
        let o = animkit(&["extract", &archive, "-o", &out.display().to_string()]);
        assert_ne!(code(&o), 0);
        assert!(String::from_utf8_lossy(&o.stderr).contains("symbolic link"));
        assert!(!out.join("a.bin").exists(), "nothing is written when one path is refused");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    }
}

/// IFP animations `a`, `a_2`, `a`: three entries, and the third goes back where it came from.
#[test]
fn repeated_ifp_animation_names_extract_and_replace_by_their_entry_names() {
    let dir = temp_dir("extract-ifp");
    let clip = |name: &str, angle: f32| Clip {
        name: name.into(),
        duration: 1.0,
        tracks: vec![Track {
            target: Target::Bone(BoneRef { name: Some("Root".into()), id: Some(0), ..Default::default() }),
            interpolation: Interpolation::Slerp,
            times: vec![0.0, 1.0],
            values: Values::Rotation(vec![glam::Quat::IDENTITY, glam::Quat::from_rotation_z(angle)]),
        }],
        ..Default::default()
    };
    let package = Package { clips: vec![clip("a", 0.1), clip("a_2", 0.2), clip("a", 0.3)], ..Default::default() };
    let (format, variant) = animkit::REGISTRY.by_name("anp3").unwrap();
    let mut options = animkit::WriteOptions::default();
    options.variant = variant.map(str::to_string);
    let bytes = format.from_model(&package, &options).unwrap().document.write().unwrap();
    let ifp = dir.join("three.ifp");
    std::fs::write(&ifp, &bytes).unwrap();
    let out = dir.join("out");
    ok(&animkit(&["extract", &ifp.display().to_string(), "-o", &out.display().to_string()]));
    let written = files_below(&out);
    assert_eq!(written.keys().collect::<Vec<_>>(), ["a.ifp", "a_2.ifp", "a_3.ifp"]);
    let third = animkit::open(out.join("a_3.ifp")).unwrap().to_model().unwrap();
    assert_eq!(third.clips[0].name, "a");
    let same = dir.join("same.ifp");
    let a3 = out.join("a_3.ifp").display().to_string();
    ok(&animkit(&["replace", &ifp.display().to_string(), "a_3.ifp", &a3, "-o", &same.display().to_string()]));
    assert_eq!(std::fs::read(&same).unwrap(), bytes);
}

/// Files in the output folder with other content are named and left alone unless `--overwrite`;
/// files that hold the asset's bytes already are no reason to refuse.
#[test]
fn extract_refuses_to_overwrite_other_files_without_overwrite() {
    let dir = temp_dir("extract-overwrite");
    let names = ["a.bin", "b.bin", "c.bin", "d.bin", "e.bin", "f.bin", "sub/g.bin"];
    let members: Vec<(&str, &[u8])> = names.iter().map(|n| (*n, n.as_bytes())).collect();
    let archive = sarc_file(&dir, &members);
    let out = dir.join("out");
    let out_arg = out.display().to_string();
    ok(&animkit(&["extract", &archive, "-o", &out_arg]));
    let again = ok(&animkit(&["extract", &archive, "-o", &out_arg]));
    assert!(again.contains("7 assets written") && again.contains("(7 held this content already)"), "{again}");

    std::fs::write(out.join("c.bin"), b"edited by hand").unwrap();
    let o = animkit(&["extract", &archive, "-o", &out_arg]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("refusing to overwrite 1 existing file in"), "{err}");
    assert!(err.contains("holds something else: c.bin; nothing was written (use --overwrite to replace it)"), "{err}");
    assert_eq!(std::fs::read(out.join("c.bin")).unwrap(), b"edited by hand");

    for name in names {
        std::fs::write(out.join(name), b"edited").unwrap();
    }
    let o = animkit(&["extract", &archive, "-o", &out_arg]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("refusing to overwrite 7 existing files"), "{err}");
    assert!(err.contains("hold something else: a.bin, b.bin, c.bin, d.bin, e.bin, and 2 more;"), "{err}");
    assert!(err.contains("(use --overwrite to replace them)"), "{err}");
    assert!(files_below(&out).values().all(|data| data == b"edited"));

    ok(&animkit(&["extract", &archive, "-o", &out_arg, "--overwrite"]));
    let written = files_below(&out);
    assert_eq!(written.len(), names.len());
    assert!(names.iter().all(|n| written[*n] == n.as_bytes()), "{written:?}");
}
