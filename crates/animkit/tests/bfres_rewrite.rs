//! Every corpus BFRES → model → BFRES → model: the written file reads back through the reader,
//! lints with no errors, and its model equals the original at several times per clip within
//! the quantisation; what the model does not carry is named, never dropped silently; the size
//! of the written file is reported beside the original's.

mod common;

use animkit::formats::bfres::Bfres;
use animkit::lint::Severity;
use animkit::model::Package;
use animkit::sample::{sample_track, Sampled};
use animkit::{Bytes, Format, ReadOptions, WriteOptions};

/// The largest difference between two samples, relative for vectors and scalars (1 - |dot| for
/// rotations, 0/1 for indices and visibility).
fn difference(a: Sampled, b: Sampled) -> f32 {
    match (a, b) {
        (Sampled::Rotation(x), Sampled::Rotation(y)) => 1.0 - x.dot(y).abs(),
        (Sampled::Translation(x), Sampled::Translation(y)) | (Sampled::Scale(x), Sampled::Scale(y)) => {
            (x - y).abs().max_element() / x.abs().max_element().max(1.0)
        }
        (Sampled::Scalar(x), Sampled::Scalar(y)) => (x - y).abs() / x.abs().max(1.0),
        (Sampled::TextureIndex(x), Sampled::TextureIndex(y)) => f32::from(u8::from(x != y)),
        (Sampled::Visibility(x), Sampled::Visibility(y)) => f32::from(u8::from(x != y)),
        (x, y) => panic!("{x:?} vs {y:?}"),
    }
}

/// Samples every track of `a` at 7 times per clip (start, end and between) and compares with the
/// same track in `b`: returns (samples, worst difference).
fn compare(a: &Package, b: &Package) -> (usize, f32) {
    let (mut n, mut worst) = (0, 0f32);
    for ca in &a.clips {
        let same: Vec<_> = b.clips.iter().filter(|c| c.name == ca.name).collect();
        assert!(!same.is_empty(), "clip {} missing", ca.name);
        for ta in &ca.tracks {
            let tb = same
                .iter()
                .flat_map(|c| &c.tracks)
                .find(|t| t.target == ta.target && t.channel() == ta.channel())
                .unwrap_or_else(|| panic!("{} {} missing", ca.name, ta.target.label()));
            for k in 0..=6 {
                // Whole frames (30 fps), so step channels compare where the format stores them.
                let t = (ca.duration * 30.0 * k as f32 / 6.0).round() / 30.0;
                let d = difference(sample_track(ta, t).unwrap(), sample_track(tb, t).unwrap());
                assert!(d < 2e-4, "{} {} t={t}: difference {d}", ca.name, ta.target.label());
                worst = worst.max(d);
                n += 1;
            }
        }
    }
    (n, worst)
}

#[test]
fn every_corpus_file_survives_bfres_model_bfres() {
    let files = common::corpus_files("bfres");
    let mut report = Vec::new();
    for (name, data) in files {
        let original = data.len();
        let doc = animkit::read(Bytes::from(data), None, &ReadOptions::default()).unwrap();
        let a = doc.to_model().unwrap();
        let written = Bfres.from_model(&a, &WriteOptions::default()).unwrap();
        let bytes = written.document.write().unwrap();
        // The skeleton the model carries is not written, and the warning says so with its size.
        if let Some(s) = &a.skeleton {
            let want = format!("skeleton ({} bones) not written", s.bones.len());
            assert!(written.warnings.iter().any(|w| w.starts_with(&want)), "{name}: {:?}", written.warnings);
        }
        let again = Bfres.read(Bytes::from(bytes.clone()), &ReadOptions::default()).unwrap();
        assert_eq!(again.write().unwrap(), bytes, "{name}: write-back");
        let errors: Vec<_> = again.lint().into_iter().filter(|f| f.severity == Severity::Error).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let b = again.to_model().unwrap();
        let (n, worst) = compare(&a, &b);
        report.push(format!(
            "{name}: {original} bytes → {} bytes ({:.2}×); {n} samples, worst difference {worst:e}",
            bytes.len(),
            bytes.len() as f64 / original as f64
        ));
    }
    eprintln!("{}", report.join("\n"));
}

/// `Animal_Bass.bfres` holds two models and an embedded file besides its texture pattern: the
/// model does not carry them, and the document's notes say so with counts read from the file
/// (FMDL "Bass": 6 bones, 2 shapes, 2 materials; "Bass_Boneless": 1, 2, 2; one embedded file).
#[test]
fn what_the_model_does_not_carry_is_named() {
    let Some(data) = common::corpus_file("bfres", "Animal_Bass.bfres") else {
        return;
    };
    let doc = Bfres.read(Bytes::from(data), &ReadOptions::default()).unwrap();
    let notes = doc.notes();
    let want = "2 models (7 bones, 4 shapes, 4 materials), 1 embedded file not carried into the model";
    assert!(notes.iter().any(|n| n.starts_with(want)), "{notes:#?}");
    // An animation file's FMDL "Skeleton" (no shapes) is carried as the package skeleton.
    let Some(data) = common::corpus_file("bfres", "Animal_Bass_Animation.bfres") else {
        return;
    };
    let doc = Bfres.read(Bytes::from(data), &ReadOptions::default()).unwrap();
    assert!(!doc.notes().iter().any(|n| n.contains("not carried")), "{:#?}", doc.notes());
}
