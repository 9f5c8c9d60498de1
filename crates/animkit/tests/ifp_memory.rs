//! Peak heap use of `info` on the SA ped file (issue: under 3× the file size).
//! A counting global allocator sees every allocation of this test binary, so the binary holds
//! exactly one test.

mod common;

use common::counting_alloc::{peak_during, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn info_peak_heap_is_under_three_times_the_file() {
    let Some(path) = common::corpus_dir("ifp").map(|d| d.join("sa_ped_anp3.ifp")) else { return };
    let size = std::fs::metadata(&path).unwrap().len() as usize;
    // What `animkit info` does: read the file, parse it, summarise it. The file's bytes count.
    let (summary, info_peak) = peak_during(|| animkit::open(&path).unwrap().summary().unwrap());
    assert_eq!(summary.clips.len(), 294);
    drop(summary);
    let (model, model_peak) = peak_during(|| animkit::open(&path).unwrap().to_model().unwrap());
    assert_eq!(model.clips.len(), 294);
    eprintln!(
        "file {size} B; peak heap, file included: open + summary {info_peak} B ({:.2}×), open + to_model {model_peak} B ({:.2}×)",
        info_peak as f64 / size as f64,
        model_peak as f64 / size as f64
    );
    assert!(info_peak < 3 * size, "info's peak heap {info_peak} B is not under 3× the file ({size} B)");
}
