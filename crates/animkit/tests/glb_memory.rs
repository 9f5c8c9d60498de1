//! Peak heap use of converting the SA ped file to GLB (issue: at most 5× the input + 16 MiB).
//! A counting global allocator sees every allocation of this test binary, so the binary holds
//! exactly one test.

mod common;

use animkit::convert::ConvertOptions;
use common::counting_alloc::{peak_during, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn glb_export_peak_heap_is_at_most_five_times_the_input_plus_16_mib() {
    let Some(path) = common::corpus_dir("ifp").map(|d| d.join("sa_ped_anp3.ifp")) else { return };
    let size = std::fs::metadata(&path).unwrap().len() as usize;
    let out = std::env::temp_dir().join(format!("animkit-glb-memory-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let glb = out.join("ped.glb");
    let options = ConvertOptions::to("glb");
    // What `animkit convert ped.ifp -o ped.glb` does: read, build the model, export, read the
    // result back to count what it kept, write. The input's bytes count.
    let (report, peak) = peak_during(|| animkit::convert::convert(&path, &glb, &options).unwrap());
    let written = std::fs::metadata(&glb).unwrap().len() as usize;
    assert_eq!(report.files.len(), 1);
    assert_eq!(report.files[0].kept.unwrap().clips, 294);
    std::fs::remove_dir_all(&out).unwrap();
    let bound = 5 * size + (16 << 20);
    eprintln!(
        "input {size} B, GLB {written} B; peak heap {peak} B ({:.2}× the input; bound {bound} B)",
        peak as f64 / size as f64
    );
    assert!(peak <= bound, "converting to GLB peaked at {peak} B, over 5× the input + 16 MiB ({bound} B)");
}
