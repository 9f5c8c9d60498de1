//! Hostile inputs, generated here: each must finish (with an error or a result) in at most 2 s
//! of CPU and 512 MiB of peak heap under the default limits, and an error must name the limit
//! or the impossibility it hit.
//!
//! - decompression bombs: a `.szs` (Yaz0 around a SARC whose 32 members all point at one Yaz0
//!   stream of 256 MiB of zeros); a SARC of 32 members all pointing at that `.szs`; a 12 MB Yaz0
//!   that really holds 1 GiB; Yaz0 headers declaring more than the stream holds; a Zstandard
//!   file (made by the `ruzstd` encoder, which declares no content size, so decoding streams) of
//!   1 GiB of zeros; a SARC of 32 members aliasing one `.zs` of 64 MiB; a Zstandard frame
//!   declaring a 128 MiB window in a few bytes;
//! - aliasing: a CryEngine chunk table of 10^6 entries pointing at one chunk;
//! - graph walks: a glTF whose nodes form a chain 100 000 deep, animated at its leaf;
//! - size: a 60 MB model-JSON file.
//!
//! A counting global allocator sees every allocation of this test binary (so it holds one test,
//! which runs the cases one after another); CPU time is the thread's, from
//! `/proc/thread-self/stat` (wall time where that is missing).

mod common;

use std::time::{Duration, Instant};

use animkit::bytes::Endian;
use animkit::containers::{sarc, yaz0, zstd};
use animkit::format::Resource;
use animkit::format::{Format, ReadOptions, WriteOptions};
use animkit::model::{BoneRef, Clip, Interpolation, Package, Target, Track, Values};
use animkit::{Bytes, ErrorKind};
use common::counting_alloc::{peak_during, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MAX_CPU: Duration = Duration::from_secs(2);
const MAX_PEAK: usize = 512 << 20;

/// This thread's CPU time (user + system), or `None` where `/proc` does not say.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name (which may hold spaces) end with `)`.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// What reading a file and using it costs, and how it ended.
struct Measured {
    cpu: Duration,
    wall: Duration,
    peak: usize,
    outcome: Result<String, animkit::Error>,
}

/// Reads `input` through the probe with default options, then converts it to the model and
/// lints it (what `convert` and `check` do), measuring CPU and peak heap. The input's own bytes
/// are not counted.
fn measure(input: Vec<u8>) -> Measured {
    let input = Bytes::from(input);
    let (cpu0, wall0) = (thread_cpu(), Instant::now());
    let (outcome, peak) = peak_during(|| {
        animkit::read(input, None, &ReadOptions::default()).and_then(|doc| {
            let findings = doc.lint();
            let package = doc.to_model()?;
            Ok(format!("{} clips, {} keys, {} findings", package.clips.len(), package.key_count(), findings.len()))
        })
    });
    let cpu = match (cpu0, thread_cpu()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => wall0.elapsed(),
    };
    Measured { cpu, wall: wall0.elapsed(), peak, outcome }
}

/// `prefix` then `zeros` zero bytes as a Yaz0 file: the prefix and one zero as literals, then
/// back-references of the longest length at distance 1 (the densest encoding: 25 stream bytes
/// per 2184 decoded).
fn yaz0_prefix_then_zeros(prefix: &[u8], zeros: usize) -> Vec<u8> {
    let size = u32::try_from(prefix.len() + zeros).unwrap();
    let mut out = b"Yaz0".to_vec();
    out.extend_from_slice(&size.to_be_bytes());
    out.extend_from_slice(&[0; 8]);
    // Where the current group's flag byte is, and the next of its 8 slots.
    let (mut flag_at, mut slot) = (0, 8);
    let mut item = |out: &mut Vec<u8>, literal: bool, bytes: &[u8]| {
        if slot == 8 {
            flag_at = out.len();
            out.push(0);
            slot = 0;
        }
        if literal {
            out[flag_at] |= 0x80 >> slot;
        }
        out.extend_from_slice(bytes);
        slot += 1;
    };
    for &b in prefix.iter().chain(&[0]).take(prefix.len() + zeros.min(1)) {
        item(&mut out, true, &[b]);
    }
    let mut left = zeros.saturating_sub(1);
    while left > 0 {
        let n = left.min(0x111);
        if n >= 0x12 {
            item(&mut out, false, &[0x00, 0x00, (n - 0x12) as u8]);
        } else {
            item(&mut out, true, &[0]);
            left -= 1;
            continue;
        }
        left -= n;
    }
    out
}

fn yaz0_zeros(len: usize) -> Vec<u8> {
    yaz0_prefix_then_zeros(&[], len)
}

/// `prefix` then `zeros` zero bytes compressed by the `ruzstd` encoder, streamed (the zeros are
/// never in memory).
fn zstd_prefix_then_zeros(prefix: &[u8], zeros: u64) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    let source = prefix.chain(std::io::repeat(0).take(zeros));
    ruzstd::encoding::compress(source, &mut out, ruzstd::encoding::CompressionLevel::Fastest);
    out
}

/// A `.zs` holding a SARC with one member of `len` zero bytes.
fn zs_with_one_big_member(len: usize) -> Vec<u8> {
    let sarc = sarc::write(&sarc::build(&[("big.bin".into(), vec![0; len])], Endian::Big).unwrap());
    zstd_prefix_then_zeros(&sarc[..sarc.len() - len], len as u64)
}

/// A Zstandard frame whose header declares a 128 MiB window (descriptor 0: a window byte
/// follows; exponent 17 → 2^27), then one empty last raw block.
fn zstd_wide_window() -> Vec<u8> {
    let mut s = zstd::FRAME_MAGIC.to_le_bytes().to_vec();
    s.extend_from_slice(&[0x00, 17 << 3, 1, 0, 0]);
    s
}

/// A Yaz0 file holding a SARC with one member of `len` zero bytes.
fn szs_with_one_big_member(len: usize) -> Vec<u8> {
    let sarc = sarc::write(&sarc::build(&[("big.bin".into(), vec![0; len])], Endian::Big).unwrap());
    let header = &sarc[..sarc.len() - len];
    yaz0_prefix_then_zeros(header, len)
}

/// A SARC of `count` members that all point at the bytes of `member`.
fn aliased_sarc(member: &[u8], count: usize) -> Vec<u8> {
    let members: Vec<(String, Vec<u8>)> =
        (0..count).map(|i| (format!("m{i:02}.szs"), if i == 0 { member.to_vec() } else { Vec::new() })).collect();
    let mut s = sarc::build(&members, Endian::Big).unwrap();
    let shared = *s.nodes.iter().find(|n| n.end > n.begin).unwrap();
    for n in &mut s.nodes {
        (n.begin, n.end) = (shared.begin, shared.end);
    }
    sarc::write(&s)
}

/// A CrCh chunk file whose table has `entries` entries, all pointing at one controller chunk.
fn aliased_chunk_table(entries: u32) -> Vec<u8> {
    let table_at = 16u32;
    let chunk_at = table_at + 16 * entries;
    let mut out = b"CrCh".to_vec();
    for v in [0x746, entries, table_at] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for id in 0..entries {
        out.extend_from_slice(&0x100Du16.to_le_bytes());
        out.extend_from_slice(&0x0827u16.to_le_bytes());
        for v in [id, 64, chunk_at] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.extend_from_slice(&[0x11; 64]);
    out
}

/// A glTF whose `depth` nodes form one chain (each the child of the one before), with a
/// translation animation on the last.
fn gltf_chain(depth: usize) -> Vec<u8> {
    let nodes: Vec<String> =
        (0..depth).map(|i| if i + 1 < depth { format!("{{\"children\":[{}]}}", i + 1) } else { "{}".into() }).collect();
    let mut buffer = Vec::new();
    for v in [0.0f32, 1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0] {
        buffer.extend_from_slice(&v.to_le_bytes());
    }
    let data = animkit::interchange::gltf::base64_encode(&buffer);
    format!(
        r#"{{"asset":{{"version":"2.0"}},"nodes":[{}],
        "buffers":[{{"byteLength":32,"uri":"data:application/octet-stream;base64,{data}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":8}},{{"buffer":0,"byteOffset":8,"byteLength":24}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},
                     {{"bufferView":1,"componentType":5126,"count":2,"type":"VEC3"}}],
        "animations":[{{"samplers":[{{"input":0,"output":1}}],
                        "channels":[{{"sampler":0,"target":{{"node":{},"path":"translation"}}}}]}}]}}"#,
        nodes.join(","),
        depth - 1
    )
    .into_bytes()
}

/// A package with one clip of `keys` translation keys on one bone.
fn package_with_keys(keys: usize) -> Package {
    let track = Track {
        target: Target::Bone(BoneRef::named("root")),
        interpolation: Interpolation::Linear,
        times: (0..keys).map(|i| i as f32 / 30.0).collect(),
        values: Values::Translation((0..keys).map(|i| glam::Vec3::new(i as f32 * 0.37, 1.0 / 3.0, -2.5)).collect()),
    };
    let clip = Clip { name: "c".into(), duration: keys as f32 / 30.0, tracks: vec![track], ..Default::default() };
    Package { clips: vec![clip], ..Default::default() }
}

fn model_json(package: &Package) -> Vec<u8> {
    let format = animkit::interchange::model_json::ModelJson;
    format.from_model(package, &WriteOptions::default()).unwrap().document.write().unwrap()
}

/// How a case must end: a result, or an error whose kind and message say why.
enum Expect {
    Result,
    Error(ErrorKind, &'static str),
}

#[test]
fn hostile_inputs_are_cheap_under_the_default_limits() {
    let generation = Instant::now();
    let inner_bomb = yaz0_zeros(256 << 20);
    let szs = yaz0::encode(&aliased_sarc(&inner_bomb, 32), 0);
    drop(inner_bomb);
    // A 16 MB stream (valid, then zeros): it can encode at most 1.4 GB.
    let mut claims_4gib = yaz0_zeros(16 << 20);
    claims_4gib.resize(16 << 20, 0);
    claims_4gib[4..8].copy_from_slice(&u32::MAX.to_be_bytes());
    let mut claims_1_4gb = claims_4gib.clone();
    let encodable = yaz0::max_decoded_len(claims_1_4gb.len() - 16) as u32;
    claims_1_4gb[4..8].copy_from_slice(&encodable.to_be_bytes());
    let sixty_mb = model_json(&package_with_keys(420_000));
    let zs_1gib = zstd_prefix_then_zeros(&[], 1 << 30);
    let zs_aliased = aliased_sarc(&zs_with_one_big_member(64 << 20), 32);
    let cases: Vec<(&str, Vec<u8>, Expect)> = vec![
        (
            "szs: SARC of 32 members aliasing a 256 MiB Yaz0",
            szs.clone(),
            Expect::Error(ErrorKind::Limit, "\"decoded\""),
        ),
        (
            "SARC of 32 members aliasing that szs",
            aliased_sarc(&szs, 32),
            Expect::Error(ErrorKind::Limit, "\"decoded\""),
        ),
        ("Yaz0 holding 1 GiB", yaz0_zeros(1 << 30), Expect::Error(ErrorKind::Limit, "\"decoded\" limit")),
        ("Yaz0 claiming 4 GiB", claims_4gib, Expect::Error(ErrorKind::Invalid, "can encode at most")),
        ("Yaz0 claiming what it could encode", claims_1_4gb, Expect::Error(ErrorKind::Limit, "\"decoded\" limit")),
        ("Zstandard holding 1 GiB", zs_1gib, Expect::Error(ErrorKind::Limit, "\"decoded\" limit")),
        // Decoded once (members sharing bytes share their document), so within the budget.
        ("SARC of 32 members aliasing a 64 MiB .zs", zs_aliased, Expect::Result),
        (
            "Zstandard declaring a 128 MiB window",
            zstd_wide_window(),
            Expect::Error(ErrorKind::Unsupported, "not a format"),
        ),
        (
            "CryEngine table of 10^6 aliases",
            aliased_chunk_table(1_000_000),
            Expect::Error(ErrorKind::Invalid, "overlap"),
        ),
        ("glTF chain 100k deep", gltf_chain(100_000), Expect::Result),
        ("model-json", sixty_mb, Expect::Result),
        ("szs of one 64 MiB member", szs_with_one_big_member(64 << 20), Expect::Result),
    ];
    eprintln!("inputs generated in {:.2?}", generation.elapsed());
    let mut failures = Vec::new();
    for (name, input, expect) in cases {
        let size = input.len();
        let m = measure(input);
        let how = match &m.outcome {
            Ok(summary) => summary.clone(),
            Err(e) => e.to_string(),
        };
        let peak = m.peak as f64 / (1 << 20) as f64;
        eprintln!("{name}: {size} B in, {:.2?} CPU ({:.2?} wall), peak {peak:.1} MiB: {how}", m.cpu, m.wall);
        if m.cpu > MAX_CPU || m.peak > MAX_PEAK {
            failures.push(format!("{name}: {:.2?} CPU, {} B peak", m.cpu, m.peak));
        }
        match (expect, &m.outcome) {
            (Expect::Result, Ok(_)) => {}
            (Expect::Error(kind, says), Err(e)) if e.kind == kind && e.message.contains(says) => {}
            (_, _) => failures.push(format!("{name}: unexpected outcome: {how}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    members_sharing_bytes_are_decoded_once();
    decoded_members_are_not_copied();
}

/// A SARC decoded from Yaz0 and its members are slices of the decoded bytes: reading and
/// converting a `.szs` whose one member is 64 MiB peaks at the decoded size, not three copies.
fn decoded_members_are_not_copied() {
    let len = 64 << 20;
    let m = measure(szs_with_one_big_member(len));
    assert_eq!(m.outcome.unwrap(), "0 clips, 0 keys, 0 findings");
    assert!(m.peak < len + len / 8, "peak {} B for a {len}-byte member", m.peak);
}

/// A SARC whose 32 members all point at one Yaz0 stream decodes it once: the budget is charged
/// its size once, and every member still contributes its clip.
fn members_sharing_bytes_are_decoded_once() {
    let payload = model_json(&package_with_keys(10));
    let archive = aliased_sarc(&yaz0::encode(&payload, 0), 32);
    let budget = animkit::format::Budget::for_input(archive.len(), &Default::default());
    let options = ReadOptions::default().nested(&budget);
    let package = animkit::read(Bytes::from(archive), None, &options).unwrap().to_model().unwrap();
    assert_eq!(package.clips.len(), 32);
    assert_eq!(budget.used(Resource::Decoded), payload.len() as u64);
    assert_eq!(budget.used(Resource::Keys), 32 * 10);
}
