//! Robustness: every corpus file and every generated file, truncated at (nearly) every byte offset
//! and with header/count fields overwritten by extreme values, is read with `animkit::read`; what
//! still reads is converted to the model, linted, written, dumped and repaired. Every case must
//! end in an error that names an offset, or a document — never a panic, a hang or a huge
//! allocation. A counting global allocator measures the peak heap of every case.
//!
//! Files up to 8 KiB (every generated file) are truncated at every offset; bigger ones at every
//! offset of the first 2 KiB, the last bytes, a stride over the last 4 KiB and a sample of the
//! rest, so the whole test stays near a minute. `ANIMKIT_ROBUST_FULL=1` truncates every file at
//! every offset and mutates more fields (a long run, for a nightly job).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use animkit::bytes::Endian;
use animkit::model::{Bone, BoneRef, Clip, Interpolation, Package, Skeleton, Target, Track, Transform, UpAxis, Values};
use animkit::{Bytes, ReadOptions, WriteOptions};
use glam::{Quat, Vec3};

// ---------------------------------------------------------------------------------------------
// A counting allocator: current and peak bytes in use over the whole process.

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The largest single request seen since the last reset.
static LARGEST: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let now = CURRENT.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(now, Ordering::Relaxed);
    LARGEST.fetch_max(size, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Tests in this binary measure the heap: they run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` and returns its result with the peak heap growth (bytes) while it ran.
fn measured<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    LARGEST.store(0, Ordering::Relaxed);
    let out = f();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    (out, peak)
}

// ---------------------------------------------------------------------------------------------
// A watchdog: a case that makes no progress for this long is a hang; the process says which
// case it was and exits (a hang cannot be interrupted from inside).

const HANG: Duration = Duration::from_secs(60);
/// A single case slower than this fails the test (generous: the machine may be shared).
const SLOW: Duration = Duration::from_secs(10);

static HEARTBEAT: AtomicU64 = AtomicU64::new(0);
static CURRENT_CASE: Mutex<String> = Mutex::new(String::new());
static WATCHDOG: AtomicBool = AtomicBool::new(false);

fn start_watchdog() {
    if WATCHDOG.swap(true, Ordering::SeqCst) {
        return;
    }
    std::thread::spawn(|| {
        let mut last = (u64::MAX, Instant::now());
        loop {
            std::thread::sleep(Duration::from_secs(1));
            let beat = HEARTBEAT.load(Ordering::Relaxed);
            if beat != last.0 {
                last = (beat, Instant::now());
            } else if last.1.elapsed() > HANG && beat % 2 == 1 {
                let case = CURRENT_CASE.lock().map(|c| c.clone()).unwrap_or_default();
                eprintln!("HANG: no progress for {HANG:?} in case {case}");
                std::process::exit(3);
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// One case.

/// What the harness found over many cases.
#[derive(Default)]
struct Tally {
    cases: usize,
    read_ok: usize,
    read_err: usize,
    max_peak: usize,
    slowest: Duration,
    /// Failures by kind: how many, and the first few.
    failures: std::collections::BTreeMap<&'static str, (usize, Vec<String>)>,
}

impl Tally {
    fn fail(&mut self, kind: &'static str, msg: String) {
        let entry = self.failures.entry(kind).or_default();
        entry.0 += 1;
        if entry.1.len() < 8 || std::env::var("ANIMKIT_ROBUST_ALL").is_ok() {
            entry.1.push(msg);
        }
    }

    fn check(&self, what: &str) {
        eprintln!(
            "{what}: {} cases ({} read, {} errors), worst peak heap {} KiB, slowest case {:?}",
            self.cases,
            self.read_ok,
            self.read_err,
            self.max_peak / 1024,
            self.slowest
        );
        let report: Vec<String> = self
            .failures
            .iter()
            .map(|(kind, (n, first))| format!("{n} × {kind}, e.g.:\n  {}", first.join("\n  ")))
            .collect();
        assert!(self.failures.is_empty(), "{what}: failures:\n{}", report.join("\n"));
    }
}

thread_local! {
    static PANIC_MESSAGE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let inside = PANIC_MESSAGE.with(|m| m.borrow().is_some());
            if inside {
                let msg = format!("{info}");
                PANIC_MESSAGE.with(|m| *m.borrow_mut() = Some(msg));
            } else {
                default(info);
            }
        }));
    });
}

/// Everything done with one input: read, then (when it reads) the other operations.
fn exercise(data: &[u8], deep: bool) -> Result<(), String> {
    let options = ReadOptions::default();
    match animkit::read(Bytes::copy_from_slice(data), None, &options) {
        Err(e) => {
            if e.offset.is_none() {
                return Err(format!("read error without an offset: {e}"));
            }
            Err(String::new())
        }
        Ok(doc) => {
            let _ = doc.to_model();
            let _ = doc.lint();
            let _ = doc.write();
            if deep {
                let _ = doc.dump();
                let _ = doc.repair();
                // Putting the first entry back (and a stranger in its place) must not panic either.
                if let Some(e) = doc.entries().ok().and_then(|e| e.into_iter().next()) {
                    let _ = doc.with_entry(&e.name, e.data).and_then(|d| d.write());
                    let _ = doc.with_entry(&e.name, Bytes::from_static(b"SARC\0\x14\xfe\xff")).and_then(|d| d.write());
                }
            }
            Ok(())
        }
    }
}

fn run_case(tally: &mut Tally, label: &dyn Fn() -> String, data: &[u8], deep: bool) {
    HEARTBEAT.fetch_add(1, Ordering::Relaxed); // odd: inside a case
    if let Ok(mut c) = CURRENT_CASE.lock() {
        c.clear();
        c.push_str(&label());
    }
    PANIC_MESSAGE.with(|m| *m.borrow_mut() = Some(String::new()));
    let start = Instant::now();
    let (result, peak) = measured(|| std::panic::catch_unwind(AssertUnwindSafe(|| exercise(data, deep))));
    let elapsed = start.elapsed();
    let panic_msg = PANIC_MESSAGE.with(|m| m.borrow_mut().take());
    HEARTBEAT.fetch_add(1, Ordering::Relaxed);
    tally.cases += 1;
    tally.max_peak = tally.max_peak.max(peak);
    tally.slowest = tally.slowest.max(elapsed);
    match result {
        Err(_) => tally.fail("panic", format!("PANIC in {}: {}", label(), panic_msg.unwrap_or_default())),
        Ok(Ok(())) => tally.read_ok += 1,
        Ok(Err(msg)) if msg.is_empty() => tally.read_err += 1,
        Ok(Err(msg)) => {
            tally.read_err += 1;
            tally.fail("error without offset", format!("{}: {msg}", label()));
        }
    }
    let budget = (64 << 20) + 4 * data.len();
    if peak > budget {
        tally.fail("heap", format!("{}: peak heap {} bytes exceeds {budget}", label(), peak));
    }
    if elapsed > SLOW {
        tally.fail("slow", format!("{}: took {elapsed:?}", label()));
    }
}

// ---------------------------------------------------------------------------------------------
// The mutations.

/// Files up to this size are truncated at every offset.
const DENSE: usize = 8 * 1024;
/// Files up to this size get the dump and repair operations too.
const SMALL: usize = 16 * 1024;
/// Files over this size get a sparser sample (every case parses megabytes).
const HUGE: usize = 1024 * 1024;

/// `ANIMKIT_ROBUST_FULL=1`: every offset of every file, every field mutation (a long run).
fn full_run() -> bool {
    std::env::var("ANIMKIT_ROBUST_FULL").is_ok_and(|v| v == "1")
}

/// The lengths a file is truncated to.
fn truncation_points(len: usize) -> Vec<usize> {
    if len <= DENSE || full_run() {
        return (0..len).collect();
    }
    // Every offset of the first 2 KiB (the headers), the last bytes, a stride over the last
    // 4 KiB (co-prime with every alignment) and points over the middle.
    let (tail_stride, last, middle) = if len > HUGE { (127, 8, 32) } else { (17, 256, 768) };
    let mut points: Vec<usize> = (0..2048).collect();
    points.extend((len - 4096..len).step_by(tail_stride));
    points.extend(len - last..len);
    let stride = ((len - 4096) / middle).max(1) | 1;
    points.extend((2048..len - 4096).step_by(stride));
    points.sort_unstable();
    points.dedup();
    points
}

const EXTREME_32: [u32; 6] = [0, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0000, 0x0001_0000, 0x0000_FFFF];
const EXTREME_32_HUGE: [u32; 3] = [0, 0xFFFF_FFFF, 0x8000_0000];
const EXTREME_16: [u16; 3] = [0, 0xFFFF, 0x8000];

/// The offsets where fields are overwritten: every 4-aligned offset of the header (512 bytes,
/// less for big files) and a sample over the rest of the file.
fn field_offsets(len: usize) -> Vec<usize> {
    let (head, spread) = match len {
        _ if full_run() => (512, 1024),
        n if n > HUGE => (64, 12),
        n if n > DENSE => (256, 64),
        _ => (512, 128),
    };
    let mut offsets: Vec<usize> = (0..len.min(head)).step_by(4).collect();
    if len > head {
        let stride = (((len - head) / spread).max(1) + 3) & !3;
        offsets.extend((head..len).step_by(stride.max(4)));
    }
    offsets.retain(|&o| o + 4 <= len);
    offsets
}

/// Truncates and overwrites `data`, running every case.
fn torture(tally: &mut Tally, name: &str, data: &[u8]) {
    let deep = data.len() <= SMALL;
    let start = Instant::now();
    let before = tally.cases;
    for cut in truncation_points(data.len()) {
        run_case(tally, &|| format!("{name} truncated to {cut} bytes"), &data[..cut], deep);
    }
    let huge = data.len() > HUGE && !full_run();
    let values: &[u32] = if huge { &EXTREME_32_HUGE } else { &EXTREME_32 };
    let mut buf = data.to_vec();
    for at in field_offsets(data.len()) {
        let saved: [u8; 4] = buf[at..at + 4].try_into().unwrap();
        for &v in values {
            for (endian, bytes) in [("le", v.to_le_bytes()), ("be", v.to_be_bytes())] {
                if endian == "be" && v.swap_bytes() == v {
                    continue;
                }
                buf[at..at + 4].copy_from_slice(&bytes);
                run_case(tally, &|| format!("{name} with u32 {v:#x} ({endian}) at {at}"), &buf, deep);
            }
        }
        if !huge {
            for half in [at, at + 2] {
                for v in EXTREME_16 {
                    buf[at..at + 4].copy_from_slice(&saved);
                    buf[half..half + 2].copy_from_slice(&v.to_le_bytes());
                    run_case(tally, &|| format!("{name} with u16 {v:#x} at {half}"), &buf, deep);
                }
            }
        }
        buf[at..at + 4].copy_from_slice(&saved);
    }
    eprintln!("  {name}: {} bytes, {} cases, {:?}", data.len(), tally.cases - before, start.elapsed());
}

// ---------------------------------------------------------------------------------------------
// Generated files: a small model written by every format's `from_model`.

const BONES: [&str; 3] = ["Root", "Spine", "Head"];
/// An unusual key count, so the count fields are easy to find in the written files.
const KEYS: usize = 37;

fn crc32(name: &str) -> u32 {
    crc32fast::hash(name.to_ascii_lowercase().as_bytes())
}

fn bone_ref(i: usize) -> BoneRef {
    BoneRef { name: Some(BONES[i].into()), id: Some(i as i32), hash: Some(crc32(BONES[i])), index: Some(i as u32) }
}

fn small_model() -> Package {
    let times: Vec<f32> = (0..KEYS).map(|k| k as f32 / 30.0).collect();
    let mut tracks = Vec::new();
    for i in 0..BONES.len() {
        let rot = times.iter().map(|&t| Quat::from_rotation_x(t * (i as f32 + 1.0))).collect();
        tracks.push(Track {
            target: Target::Bone(bone_ref(i)),
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: Values::Rotation(rot),
        });
        let pos = times.iter().map(|&t| Vec3::new(0.0, t, i as f32 * 0.1)).collect();
        tracks.push(Track {
            target: Target::Bone(bone_ref(i)),
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: Values::Translation(pos),
        });
    }
    let duration = (KEYS - 1) as f32 / 30.0;
    let clip = Clip {
        name: "robust".into(),
        duration,
        looping: Some(true),
        frame_rate: Some(30.0),
        tracks,
        ..Default::default()
    };
    let bones = (0..BONES.len())
        .map(|i| Bone {
            name: BONES[i].into(),
            id: Some(i as i32),
            hash: Some(crc32(BONES[i])),
            parent: i.checked_sub(1),
            rest: Transform { translation: Vec3::new(0.0, 0.0, 0.2), ..Default::default() },
        })
        .collect();
    Package { name: "robust".into(), up_axis: UpAxis::Z, clips: vec![clip], skeleton: Some(Skeleton { bones }) }
}

/// `(name, bytes)` of every file the formats can write from [`small_model`], plus Yaz0 and SARC
/// containers around some of them.
fn generated_files() -> Vec<(String, Vec<u8>)> {
    let package = small_model();
    let mut out = Vec::new();
    for &format in animkit::REGISTRY.formats() {
        // Write-only formats (the CSV table) have nothing to read back.
        if !format.capabilities().from_model || !format.capabilities().read {
            continue;
        }
        let variants: Vec<Option<&str>> = if format.variants().is_empty() {
            vec![None]
        } else {
            format.variants().iter().map(|&v| Some(v)).collect()
        };
        for variant in variants {
            let mut options = WriteOptions::default();
            options.variant = variant.map(str::to_string);
            let name = format!("generated {}{}", format.name(), variant.map(|v| format!("/{v}")).unwrap_or_default());
            match format.from_model(&package, &options).and_then(|w| w.document.write()) {
                Ok(bytes) => out.push((name, bytes)),
                Err(e) => eprintln!("note: {name}: from_model failed: {e}"),
            }
        }
    }
    out.push(("generated dff(clump)".into(), tiny_clump()));
    if let Some((_, skb)) = out.iter().find(|(n, _)| n == "generated skb/skb-be") {
        let hip = tiny_hip(skb);
        out.push(("generated hip(skb)".into(), hip));
    }
    let bfres = out.iter().find(|(n, _)| n == "generated bfres").map(|(_, b)| b.clone());
    let ifp = out.iter().find(|(n, _)| n.starts_with("generated ifp")).map(|(_, b)| b.clone());
    if let Some(bfres) = &bfres {
        out.push(("generated yaz0(bfres)".into(), animkit::containers::yaz0::encode(bfres, 0x80)));
    }
    if let (Some(bfres), Some(ifp)) = (bfres, ifp) {
        let members = vec![("a/robust.bfres".to_string(), bfres), ("b/robust.ifp".to_string(), ifp)];
        for endian in [Endian::Big, Endian::Little] {
            match animkit::containers::sarc::build(&members, endian) {
                Ok(s) => out.push((format!("generated sarc {endian:?}"), animkit::containers::sarc::write(&s))),
                Err(e) => eprintln!("note: sarc: {e}"),
            }
        }
        if let Some((_, sarc)) = out.iter().find(|(n, _)| n == "generated sarc Little") {
            out.push(("generated zstd(sarc)".into(), animkit::containers::zstd::encode(sarc)));
        }
    }
    out
}

fn block(out: &mut Vec<u8>, id: &[u8; 4], payload: &[u8]) {
    out.extend_from_slice(id);
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
}

/// The HIP asset hash (`evilengine.md` §5.4): `h = h * 131 + upper(byte)`, wrapping.
fn hip_hash(name: &str) -> u32 {
    name.bytes().fold(0u32, |h, b| h.wrapping_mul(131).wrapping_add(u32::from(b.to_ascii_uppercase())))
}

/// A minimal HIP archive (`evilengine.md` §5) holding one ANIM asset: HIPA, PACK{PVER},
/// DICT{ATOC{AINF, AHDR{ADBG}}, LTOC{LINF, LHDR{LDBG}}}, STRM{DHDR, DPAK}. The asset's absolute
/// offset depends on the layout, so the archive is laid out twice.
/// A RenderWare clump (the `dff` format, read-only) with a two-bone HAnim skeleton and frame
/// names: clump → struct, frame list → struct (3 frames: clump root, two bones), one extension
/// per frame (HAnim PLG, frame name).
fn tiny_clump() -> Vec<u8> {
    const RW_VERSION: u32 = 0x1003_FFFF;
    let chunk = |kind: u32, body: &[u8]| {
        let mut v = Vec::new();
        for x in [kind, body.len() as u32, RW_VERSION] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        v.extend_from_slice(body);
        v
    };
    let mut frames = 3u32.to_le_bytes().to_vec();
    for (translation, parent) in [([0.0f32; 3], -1i32), ([0.0, 0.0, 1.0], 0), ([0.0, 0.5, 0.0], 1)] {
        let matrix = [1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        matrix.iter().chain(&translation).for_each(|v| frames.extend_from_slice(&v.to_le_bytes()));
        frames.extend_from_slice(&parent.to_le_bytes());
        frames.extend_from_slice(&0u32.to_le_bytes());
    }
    let hanim = |id: u32, nodes: &[(u32, u32, u32)]| {
        let mut b = Vec::new();
        for v in [0x100, id, nodes.len() as u32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        if !nodes.is_empty() {
            b.extend_from_slice(&0u32.to_le_bytes());
            b.extend_from_slice(&36u32.to_le_bytes());
            nodes.iter().flat_map(|&(a, i, f)| [a, i, f]).for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
        }
        chunk(0x11E, &b)
    };
    let mut list = chunk(0x01, &frames);
    list.extend(chunk(0x03, &[]));
    list.extend(chunk(0x03, &[hanim(1, &[(1, 0, 0), (2, 1, 1)]), chunk(0x0253_F2FE, b"Hips")].concat()));
    list.extend(chunk(0x03, &[hanim(2, &[]), chunk(0x0253_F2FE, b"Spine")].concat()));
    chunk(0x10, &[chunk(0x01, &[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), chunk(0x0E, &list)].concat())
}

fn tiny_hip(asset: &[u8]) -> Vec<u8> {
    let name = "robust.anm";
    let mut adbg = 0i32.to_be_bytes().to_vec();
    adbg.extend_from_slice(b"robust\0\0");
    adbg.extend_from_slice(b"robust.anm\0\0");
    adbg.extend_from_slice(&0u32.to_be_bytes());
    let build = |offset: usize| {
        let mut ahdr = hip_hash(name).to_be_bytes().to_vec();
        ahdr.extend_from_slice(b"ANIM");
        let plus = asset.len().next_multiple_of(16) - asset.len();
        for v in [offset, asset.len(), plus, 9] {
            ahdr.extend_from_slice(&(v as u32).to_be_bytes());
        }
        block(&mut ahdr, b"ADBG", &adbg);
        let mut atoc = Vec::new();
        block(&mut atoc, b"AINF", &[0; 4]);
        block(&mut atoc, b"AHDR", &ahdr);
        let mut lhdr = Vec::new();
        for v in [4, 1, hip_hash(name)] {
            lhdr.extend_from_slice(&v.to_be_bytes());
        }
        block(&mut lhdr, b"LDBG", &[0xFF; 4]);
        let mut ltoc = Vec::new();
        block(&mut ltoc, b"LINF", &[0; 4]);
        block(&mut ltoc, b"LHDR", &lhdr);
        let mut dict = Vec::new();
        block(&mut dict, b"ATOC", &atoc);
        block(&mut dict, b"LTOC", &ltoc);
        let mut pack = Vec::new();
        block(&mut pack, b"PVER", &[0, 0, 0, 2, 0, 0x0A, 0, 0x0F, 0, 0, 0, 1]);
        let mut w = Vec::new();
        block(&mut w, b"HIPA", &[]);
        block(&mut w, b"PACK", &pack);
        block(&mut w, b"DICT", &dict);
        // STRM header 8, DHDR 12, DPAK header 8, padLength 4, then the first asset at 0x20.
        let dpak_at = w.len() + 8 + 12 + 8;
        let first = (dpak_at + 4).next_multiple_of(0x20);
        let mut dpak = vec![0u8; 4];
        dpak[3] = (first - dpak_at) as u8;
        dpak.resize(first - dpak_at, 0x33);
        dpak.extend_from_slice(asset);
        dpak.resize((dpak_at + dpak.len()).next_multiple_of(0x20) - dpak_at, 0x33);
        let mut strm = Vec::new();
        block(&mut strm, b"DHDR", &[0xFF; 4]);
        block(&mut strm, b"DPAK", &dpak);
        block(&mut w, b"STRM", &strm);
        (w, first)
    };
    let (_, offset) = build(0);
    build(offset).0
}

// ---------------------------------------------------------------------------------------------
// The tests.

fn torture_folder(folder: &str) {
    let _guard = serial();
    quiet_panics();
    start_watchdog();
    let files = common::corpus_files(folder);
    let start = Instant::now();
    let mut tally = Tally::default();
    for (name, data) in &files {
        torture(&mut tally, &format!("{folder}/{name}"), data);
    }
    eprintln!("{folder}: {} files in {:?}", files.len(), start.elapsed());
    tally.check(folder);
}

#[test]
fn corpus_ifp_never_panics() {
    torture_folder("ifp");
}

#[test]
fn corpus_evilengine_never_panics() {
    torture_folder("evilengine");
}

#[test]
fn corpus_cryengine_never_panics() {
    torture_folder("cryengine");
}

#[test]
fn corpus_bfres_never_panics() {
    torture_folder("bfres");
}

#[test]
fn generated_files_never_panic() {
    let _guard = serial();
    quiet_panics();
    start_watchdog();
    let files = generated_files();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    eprintln!("generated: {names:?}");
    // Every format that writes from the model contributes at least one file.
    for &format in animkit::REGISTRY.formats().iter().filter(|f| f.capabilities().from_model && f.capabilities().read) {
        assert!(
            names.iter().any(|n| n.starts_with(&format!("generated {}", format.name()))),
            "no generated file for {}",
            format.name()
        );
    }
    let mut tally = Tally::default();
    for (name, data) in &files {
        // The unmodified file reads.
        assert!(animkit::read(Bytes::from(data.clone()), None, &ReadOptions::default()).is_ok(), "{name} reads");
        torture(&mut tally, name, data);
    }
    tally.check("generated");
}

/// `ANIMKIT_SAVE_GENERATED=DIR`: writes the generated files to `DIR` (the fuzz seeds, see
/// `fuzz/run.sh`); a no-op otherwise.
#[test]
fn save_generated_fixtures() {
    let Some(dir) = std::env::var_os("ANIMKIT_SAVE_GENERATED") else { return };
    for (name, data) in generated_files() {
        let file = name.trim_start_matches("generated ").replace(['/', ' ', '(', ')'], "_");
        std::fs::write(std::path::Path::new(&dir).join(file), data).unwrap();
    }
}

/// The fuzz targets (`fuzz/`, a cargo-fuzz workspace of its own that the test command does not
/// build) share `common.rs`: compiled here against the public API, each target run on every
/// generated file, so a change to the library cannot leave the targets unbuildable or naming a
/// format that is gone.
mod fuzz_targets {
    include!("../../../fuzz/fuzz_targets/common.rs");

    #[test]
    fn every_fuzz_target_runs_on_the_generated_files() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/fuzz_targets");
        let mut targets: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .filter(|stem| stem != "common")
            .collect();
        targets.sort();
        assert_eq!(targets.len(), 23, "{targets:?}");
        let files = super::generated_files();
        for target in &targets {
            for (_, data) in &files {
                run_target(target, data);
            }
        }
    }

    /// Inputs the fuzzers found (mutations of our generated fixtures, `fuzz/regressions/`), each
    /// run through the target that found it (the name before the `-`):
    /// - `roundtrip_sarc-1.bin`: an SFNT header size of 10 swallowed two name bytes (now rejected).
    /// - `roundtrip_gltf-1.bin`: our generated GLB, unmutated; the target wrongly expected its
    ///   dump (the glTF JSON alone, by design) to pack back to the GLB bytes. It round-trips.
    /// - `roundtrip_zstd-1.bin`: a frame whose 1 KiB window is larger than its (empty) content,
    ///   then trailing bytes: `pack` checked the kept stream within the payload's length, failed
    ///   on the window, and compressed the payload afresh instead of keeping the stream.
    #[test]
    fn fuzz_regressions_pass_the_target_that_found_them() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
        let mut found = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let (target, _) = name.split_once('-').unwrap();
            run_target(target, &std::fs::read(&path).unwrap());
            found += 1;
        }
        assert_eq!(found, 3);
    }
}

/// Every u32 (or u16, `wide == false`) field of `data` equal to `value` in either byte order.
fn fields_equal(data: &[u8], value: u32, wide: bool) -> Vec<(usize, Endian)> {
    let mut out = Vec::new();
    let width = if wide { 4 } else { 2 };
    for at in 0..data.len().saturating_sub(width - 1) {
        for endian in [Endian::Little, Endian::Big] {
            let v = if wide {
                let b: [u8; 4] = data[at..at + 4].try_into().unwrap();
                if endian == Endian::Little {
                    u32::from_le_bytes(b)
                } else {
                    u32::from_be_bytes(b)
                }
            } else {
                let b: [u8; 2] = data[at..at + 2].try_into().unwrap();
                u32::from(if endian == Endian::Little { u16::from_le_bytes(b) } else { u16::from_be_bytes(b) })
            };
            if v == value {
                out.push((at, endian));
            }
        }
    }
    out
}

/// A file whose key/frame count fields claim 2^32−1 (or 0xFFFF for 16-bit counts) is rejected —
/// by `read` or by `to_model` — with a small peak heap: nothing is allocated for the claimed
/// count. In every generated file, every field that holds the key count (37) is tried; the IFP
/// ANP3 frame count, the SKB1 key count, the CryEngine controller key count and the BFRES curve
/// key count must each be among the rejected ones.
#[test]
fn huge_key_counts_are_rejected_before_allocating() {
    let _guard = serial();
    quiet_panics();
    let files = generated_files();
    let mut summary = Vec::new();
    let mut worst = 0;
    for (name, data) in &files {
        let (mut tried, mut rejected) = (0, 0);
        for wide in [true, false] {
            for (at, endian) in fields_equal(data, KEYS as u32, wide) {
                let mut buf = data.clone();
                // The largest count of the field's width: all ones, the same in either byte order.
                let bytes = vec![0xFF; if wide { 4 } else { 2 }];
                buf[at..at + bytes.len()].copy_from_slice(&bytes);
                let (outcome, peak) = measured(|| {
                    std::panic::catch_unwind(|| {
                        match animkit::read(Bytes::from(buf.clone()), None, &ReadOptions::default()) {
                            Err(e) => {
                                assert!(e.offset.is_some(), "{name}: error without offset: {e}");
                                true
                            }
                            Ok(doc) => doc.to_model().is_err(),
                        }
                    })
                });
                let outcome = outcome.unwrap_or_else(|_| panic!("{name}: panic with count at {at}"));
                worst = worst.max(peak);
                assert!(peak < 16 << 20, "{name}: count at {at} ({endian:?}): peak heap {peak} bytes");
                tried += 1;
                rejected += usize::from(outcome);
            }
        }
        summary.push(format!("{name}: {rejected}/{tried}"));
        let must = ["generated ifp/anp3", "generated skb/", "generated cryengine/caf", "generated bfres"];
        if must.iter().any(|m| name.starts_with(m)) {
            assert!(rejected > 0, "{name}: no field claiming a huge count was rejected ({tried} tried)");
        }
    }
    eprintln!("huge counts rejected/tried: {}; worst peak heap {} KiB", summary.join(", "), worst / 1024);
}

/// `Limits::max_keys` is honoured by every format's model conversion, and `decoded_bytes` by
/// the decompressor: a generated file with 222 keys, read with a limit of 10 keys, fails with
/// `ErrorKind::Limit` (at read or at `to_model`), and reads normally without the limit.
#[test]
fn limits_are_honoured_by_every_format() {
    let _guard = serial();
    let mut ten_keys = animkit::format::Limits::default();
    ten_keys.max_keys = 10;
    let tight = ReadOptions::default().with_limits(ten_keys);
    let mut failures = Vec::new();
    for (name, data) in generated_files() {
        let normal = animkit::read(Bytes::from(data.clone()), None, &ReadOptions::default())
            .and_then(|d| d.to_model())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if normal.key_count() <= 10 {
            continue; // a container whose model has no keys of its own
        }
        let limited = animkit::read(Bytes::from(data.clone()), None, &tight).and_then(|d| d.to_model());
        match limited {
            Err(e) if e.kind == animkit::ErrorKind::Limit => {}
            Err(e) => failures.push(format!("{name}: {:?} error instead of a limit: {e}", e.kind)),
            Ok(p) => failures.push(format!("{name}: {} keys converted despite max_keys = 10", p.key_count())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // Decompression stops at the decoded-bytes limit before allocating the declared size.
    let bfres = generated_files().into_iter().find(|(n, _)| n == "generated yaz0(bfres)").unwrap().1;
    let mut hundred_bytes = animkit::format::Limits::default();
    hundred_bytes.decoded_bytes = Some(100);
    let small = ReadOptions::default().with_limits(hundred_bytes);
    let (result, peak) = measured(|| animkit::read(Bytes::from(bfres), None, &small).map(|_| ()));
    assert_eq!(result.unwrap_err().kind, animkit::ErrorKind::Limit);
    assert!(peak < 64 << 10, "peak {peak}");
}

/// Cyclic structures end in an error, not a loop: a glTF whose nodes are each other's child.
#[test]
fn cyclic_node_graphs_are_rejected() {
    let _guard = serial();
    let json = br#"{"asset":{"version":"2.0"},"nodes":[{"name":"a","children":[1]},{"name":"b","children":[0]}],
        "animations":[]}"#;
    let start = Instant::now();
    let result = animkit::read(Bytes::from_static(json), None, &ReadOptions::default()).and_then(|d| d.to_model());
    assert!(result.is_err(), "a node cycle is an error");
    assert!(start.elapsed() < Duration::from_secs(1));
}
