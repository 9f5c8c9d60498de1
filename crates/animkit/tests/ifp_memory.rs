//! Peak heap use of `info` on the SA ped file (issue: under 3× the file size).
//! A counting global allocator sees every allocation of this test binary, so the binary holds
//! exactly one test.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(now, Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak heap bytes above the current level while `f` runs.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = CURRENT.load(Relaxed);
    PEAK.store(before, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed) - before)
}

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
