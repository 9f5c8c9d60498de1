//! The shipped example files are exactly what their recipe (`examples/walk_cycle.rs`) produces,
//! and they work end to end.

#[path = "../examples/walk_cycle.rs"]
mod walk_cycle;

use animkit::sample::{sample_track, Sampled};
use glam::Vec4;

fn shipped(name: &str) -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name)).unwrap()
}

#[test]
fn shipped_examples_match_their_recipe() {
    let (ifp, glb) = walk_cycle::example_files();
    assert!(
        ifp == shipped("walk_cycle.ifp"),
        "examples/walk_cycle.ifp is stale: run `cargo run -p animkit --example walk_cycle`"
    );
    assert!(glb == shipped("walk_cycle_rig.glb"), "examples/walk_cycle_rig.glb is stale: run the example");
}

#[test]
fn walk_cycle_reads_back_as_the_same_motion() {
    let original = walk_cycle::walk_cycle();
    let read = animkit::read(animkit::Bytes::from(shipped("walk_cycle.ifp")), None, &Default::default()).unwrap();
    assert_eq!(read.version(), "ANP3");
    let model = read.to_model().unwrap();
    let (a, b) = (&original.clips[0], &model.clips[0]);
    assert_eq!(a.tracks.len(), b.tracks.len());
    for (ta, tb) in a.tracks.iter().zip(&b.tracks) {
        for t in [0.0, 0.25, 0.5, 0.77, 1.0] {
            match (sample_track(ta, t), sample_track(tb, t)) {
                (Some(Sampled::Rotation(x)), Some(Sampled::Rotation(y))) => {
                    assert!(Vec4::from(x).abs_diff_eq(Vec4::from(y), 2.0 / 4096.0), "{} at {t}", ta.target.label())
                }
                (Some(Sampled::Translation(x)), Some(Sampled::Translation(y))) => {
                    assert!(x.abs_diff_eq(y, 1.0 / 1024.0))
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
