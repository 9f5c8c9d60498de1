//! End-to-end test of `animkit view` in headless Debian chromium, driven by playwright-core
//! (`tools/view-check/e2e.mjs`; the browser is the system's `/usr/bin/chromium`, never a
//! download). It serves the VC ped file (234 clips), selects a clip, scrubs to a time, reads the
//! bone transforms the page displays and compares them with `animkit::sample::sample`; checks
//! a screenshot is not blank; opens the `--html` file from `file://` with the network off and
//! checks it plays (beside its own GLB conversion, in sync); and measures the time to the first
//! frame.
//!
//! Needs the corpus, `chromium`, `node` and `npm ci --prefix tools/view-check`. Outside CI a
//! missing piece skips the test (saying so); under `CI=true` it fails.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use animkit::model::Target;
use animkit::sample::{sample, Sampled};
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `true` when `what` is there; else skips (false) outside CI and fails under CI.
fn require(what: &str, present: bool) -> bool {
    if present {
        return true;
    }
    assert!(std::env::var("CI").map_or(true, |v| v != "true"), "{what} is missing under CI");
    eprintln!("SKIPPED: {what} not found");
    false
}

fn corpus(dir: &str, name: &str) -> Option<PathBuf> {
    let root = std::env::var_os("ANIMKIT_CORPUS").map(PathBuf::from).unwrap_or_else(|| repo().join("../shared/corpus"));
    let path = root.join(dir).join(name);
    require(&path.display().to_string(), path.is_file()).then_some(path)
}

/// The `animkit view` server, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default()
}

/// Largest difference between `got` and `want`; quaternions (`rotation`) up to sign.
fn difference(got: &[f64], want: &[f64], rotation: bool) -> f64 {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    let dot: f64 = got.iter().zip(want).map(|(a, b)| a * b).sum();
    let sign = if rotation && dot < 0.0 { -1.0 } else { 1.0 };
    got.iter().zip(want).map(|(a, b)| (a * sign - b).abs()).fold(0.0, f64::max)
}

/// Chromium and the page-driving tools (`tools/view-check`), when both are there.
fn browser() -> Option<(PathBuf, PathBuf)> {
    let chromium =
        std::env::var_os("ANIMKIT_CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let tools = repo().join("tools/view-check");
    let node_ok = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    let present = require("chromium (apt-get install chromium)", chromium.is_file())
        && require("node", node_ok)
        && require(
            "tools/view-check/node_modules (npm ci --prefix tools/view-check)",
            tools.join("node_modules/playwright-core").is_dir(),
        );
    present.then_some((chromium, tools))
}

/// Bone name, `r` (rotation) or `t` (translation), and the components the library samples.
type Expected = Vec<(String, &'static str, Vec<f64>)>;

/// The bone rotations and translations of `clip` at `time`, as [`sample`] computes them.
fn expected_pose(clip: &animkit::model::Clip, time: f32) -> Expected {
    let mut expected = Vec::new();
    for e in sample(clip, time) {
        let Target::Bone(b) = &e.target else { continue };
        let name = b.name.as_deref().expect("IFP bones have names").to_string();
        match e.value {
            Sampled::Rotation(q) => expected.push((name, "r", q.to_array().map(f64::from).to_vec())),
            Sampled::Translation(t) => expected.push((name, "t", t.to_array().map(f64::from).to_vec())),
            _ => {}
        }
    }
    expected
}

/// The displayed transforms (panel text, 6 decimals) and the page's own numbers against the
/// library's sampling.
fn check_displayed(r: &Value, expected: &Expected) {
    let mut worst: f64 = 0.0;
    for (bone, key, want) in expected {
        let shown = numbers(&r["displayed"][bone][key]);
        let exact = numbers(&r["api"][bone][key]);
        let (d1, d2) = (difference(&shown, want, *key == "r"), difference(&exact, want, *key == "r"));
        assert!(d1 < 1e-4 && d2 < 1e-4, "{bone} {key}: page shows {shown:?} ({exact:?}), animkit samples {want:?}");
        worst = worst.max(d2);
    }
    eprintln!("{} bone channels match animkit::sample::sample (largest difference {worst:.2e})", expected.len());
}

/// The self-contained `--html` file, offline: the clips, no network request, the root's
/// rotation, playback, and the IFP and its GLB side by side agreeing on every bone.
fn check_file(file: &Value, expected: &Expected, bones: &[String]) {
    assert_eq!(file["clips"], 234);
    assert_eq!(file["blocked_requests"], serde_json::json!([]), "the HTML file asked for the network");
    let shown = numbers(&file["displayed"]["Root"]["r"]);
    let want = &expected.iter().find(|e| e.0 == "Root" && e.1 == "r").unwrap().2;
    assert!(difference(&shown, want, true) < 1e-4);
    assert!(file["played"]["time"].as_f64().unwrap() > 0.1, "{file}");
    assert!(file["played"]["frames_rendered"].as_u64().unwrap() >= 3, "{file}");
    assert!(file["screenshot"]["variance"].as_f64().unwrap() > 100.0);
    assert_eq!(file["files"].as_array().map(Vec::len), Some(2));
    for bone in bones {
        let [a, b] = [0, 1].map(|v| &file["side_by_side"][bone][v]);
        for key in ["r", "t"] {
            let (a, b) = (numbers(&a[key]), numbers(&b[key]));
            assert!(!a.is_empty() && difference(&a, &b, key == "r") < 1e-4, "{bone} {key}: {a:?} beside {b:?}");
        }
    }
}

#[test]
fn view_shows_the_vc_ped_file_in_chromium() {
    let Some(ifp) = corpus("ifp", "vc_ped_anpk.ifp") else { return };
    let Some((chromium, tools)) = browser() else { return };

    // What the library computes.
    let (clip_name, time) = ("WALK_civi", 0.37f32);
    let package = animkit::open(&ifp).unwrap().to_model().unwrap();
    assert_eq!(package.clips.len(), 234);
    let clip = package.clip(clip_name).expect("clip in the VC ped file");
    let expected = expected_pose(clip, time);
    let mut bones: Vec<String> = expected.iter().map(|e| e.0.clone()).collect();
    bones.dedup();
    assert!(bones.len() > 10, "{bones:?}");

    let dir = std::env::temp_dir().join(format!("animkit-view-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bin = env!("CARGO_BIN_EXE_animkit");

    // The self-contained file: the IFP and its GLB conversion side by side.
    let glb = dir.join("vc.glb");
    let o = Command::new(bin).arg("convert").arg(&ifp).arg("-o").arg(&glb).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = dir.join("vc.html");
    let o = Command::new(bin).arg("view").arg(&ifp).arg(&glb).arg("--html").arg(&html).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // The server: time from start to the printed URL (reading the file, exporting the GLB).
    let start = Instant::now();
    let mut child =
        Command::new(bin).arg("view").arg(&ifp).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut url = String::new();
    BufReader::new(stdout).read_line(&mut url).unwrap();
    let server_ms = start.elapsed().as_secs_f64() * 1000.0;
    let url = url.trim().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let screenshot = dir.join("view.png");
    let request = serde_json::json!({
        "url": url, "html": html, "clip": clip_name, "time": time, "bones": bones,
        "screenshot": screenshot, "chromium": chromium,
    });
    let request_path = dir.join("request.json");
    std::fs::write(&request_path, request.to_string()).unwrap();
    let o = Command::new("node").arg("e2e.mjs").arg(&request_path).current_dir(&tools).output().unwrap();
    drop(server);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert_eq!(r["console_errors"], serde_json::json!([]), "errors on the page");

    // The clip list and the scrubbed time.
    let clips = r["clips"].as_array().unwrap();
    assert_eq!(clips.len(), 234);
    let listed = clips.iter().find(|c| c["name"] == clip_name).unwrap();
    assert!((listed["duration"].as_f64().unwrap() - f64::from(clip.duration)).abs() < 1e-6);
    assert!((r["state"]["time"].as_f64().unwrap() - f64::from(time)).abs() < 1e-9);
    assert_eq!(r["state"]["frame"], 11, "0.37 s at 30 fps");

    check_displayed(&r, &expected);

    // Not blank: the screenshot's luminance varies.
    let shot = &r["screenshot"];
    assert!(std::fs::metadata(&screenshot).unwrap().len() > 10_000);
    assert!(shot["variance"].as_f64().unwrap() > 100.0, "blank screenshot? {shot}");
    assert!(r["played_to"].as_f64().unwrap() > 0.1, "playing advances the time");

    let file = &r["file"];
    check_file(file, &expected, &bones);

    // Time to the first frame: starting `animkit view` until its URL, plus navigation until the
    // page has shown its first frame.
    let page_ms = r["first_frame_ms"].as_f64().unwrap();
    let total = server_ms + page_ms;
    eprintln!(
        "time to first frame: {total:.0} ms (server ready {server_ms:.0} ms + page {page_ms:.0} ms); \
         --html file from file://: {:.0} ms",
        file["first_frame_ms"].as_f64().unwrap()
    );
    assert!(total < 2000.0, "first frame after {total:.0} ms");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Super Mario Odyssey's cap file: the page shows each bone-visibility track's state (the
/// strip label, the joint greyed while hidden) as `animkit::sample` computes it, at times on both
/// sides of every change of the clip `TestDemoE3001` (listed as "TestDemoE3001 (2)": its skeletal
/// animation has the same name).
#[test]
fn view_shows_bone_visibility_in_chromium() {
    let Some(szs) = corpus("nintendo", "smo_mariocap_bonevis.szs") else { return };
    let Some((chromium, tools)) = browser() else { return };
    let package = animkit::open(&szs).unwrap().to_model().unwrap();
    let clip = package.clips.iter().rev().find(|c| c.name == "TestDemoE3001").unwrap();
    assert_eq!(clip.tracks.len(), 3, "the visibility clip");
    let mut times = vec![0.0f32, clip.duration];
    for t in clip.tracks.iter().flat_map(|t| t.times.iter()) {
        times.extend([(t - 0.05).max(0.0), t + 0.05]);
    }
    let dir = std::env::temp_dir().join(format!("animkit-view-vis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("cap.html");
    let o =
        Command::new(env!("CARGO_BIN_EXE_animkit")).arg("view").arg(&szs).arg("--html").arg(&html).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let request = serde_json::json!({
        "html": html, "clip": "TestDemoE3001 (2)", "times": times, "screenshot": dir.join("cap.png"), "chromium": chromium,
    });
    std::fs::write(dir.join("request.json"), request.to_string()).unwrap();
    let o =
        Command::new("node").arg("visibility.mjs").arg(dir.join("request.json")).current_dir(&tools).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert_eq!(r["console_errors"], serde_json::json!([]));
    let bones: Vec<&str> = r["bones"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    let mut hidden_seen = 0;
    for (k, &t) in times.iter().enumerate() {
        for e in sample(clip, t) {
            let (Target::Bone(b), Sampled::Visibility(visible)) = (&e.target, e.value) else { continue };
            let name = b.name.as_deref().unwrap();
            let shown = r["states"][k].as_array().unwrap().iter().find(|s| s["target"] == name).unwrap();
            assert_eq!(shown["visible"], visible, "{name} at {t} s");
            let word = if visible { "visible" } else { "hidden" };
            let label = format!("{name} — bone visibility: {word}");
            assert!(r["labels"][k].as_array().unwrap().iter().any(|l| l == label.as_str()), "{label} at {t} s");
            let joint = bones.iter().position(|&b| b == name).unwrap();
            let grey = r["points"][k][joint] == serde_json::json!([0.35, 0.35, 0.35]);
            assert_eq!(grey, !visible, "{name}'s joint colour at {t} s");
            hidden_seen += usize::from(!visible);
        }
    }
    assert!(hidden_seen > 0);
}

fn http_get(port: u16, path: &str, host: &str) -> (String, Vec<u8>) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = Vec::new();
    s.read_to_end(&mut response).unwrap();
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    (head, response[split + 4..].to_vec())
}

/// The server and the `--html` file, without a browser (runs everywhere).
#[test]
fn view_serves_loopback_only_and_writes_a_self_contained_file() {
    let example = repo().join("examples/walk_cycle.ifp");
    let bin = env!("CARGO_BIN_EXE_animkit");
    let mut child =
        Command::new(bin).arg("view").arg(&example).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let _server = Server(child);
    let mut url = String::new();
    BufReader::new(stdout).read_line(&mut url).unwrap();
    let port: u16 =
        url.trim().strip_prefix("http://127.0.0.1:").and_then(|r| r.strip_suffix('/')).unwrap().parse().unwrap();
    let host = format!("127.0.0.1:{port}");

    let (head, body) = http_get(port, "/", &host);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let page = String::from_utf8(body).unwrap();
    assert!(page.contains(r#"<script type="importmap">{"imports":{"three":"./vendor/three-bundle.min.js"}}</script>"#));
    assert!(page.contains("walk_cycle.ifp"));
    let (head, body) = http_get(port, "/vendor/three-bundle.min.js", &host);
    assert!(head.starts_with("HTTP/1.1 200") && head.contains("text/javascript"), "{head}");
    assert!(String::from_utf8_lossy(&body).contains("The MIT License"), "the bundle keeps the three.js licence");
    let (head, body) = http_get(port, "/files/0.glb", &format!("localhost:{port}"));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(body.starts_with(b"glTF"));
    assert!(http_get(port, "/files/1.glb", &host).0.starts_with("HTTP/1.1 404"));
    assert!(http_get(port, "/../Cargo.toml", &host).0.starts_with("HTTP/1.1 404"));
    // DNS rebinding: another host name pointing at 127.0.0.1 is refused.
    assert!(http_get(port, "/", &format!("attacker.example:{port}")).0.starts_with("HTTP/1.1 403"));

    let dir = std::env::temp_dir().join(format!("animkit-view-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("walk.html");
    let o = Command::new(bin).arg("view").arg(&example).arg("--html").arg(&html).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.contains(r#"{"imports":{"three":"data:text/javascript;base64,"#));
    assert!(text.contains(r#"<script type="application/octet-stream" id="glb-0">Z2xURg"#), "the GLB, inlined");
    assert!(!text.contains("http://") && !text.contains("https://") && !text.contains("src=\""), "nothing to fetch");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts `animkit view` on the example through `sh -c "ulimit -n FDS; exec …"` (`fds`: the most
/// file handles it may hold, if limited). Returns the server and its port.
fn start_example_server(fds: Option<u32>) -> (Server, u16) {
    let example = repo().join("examples/walk_cycle.ifp");
    let limit = fds.map_or(String::new(), |n| format!("ulimit -n {n} && "));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{limit}exec \"$0\" view \"$1\""))
        .arg(env!("CARGO_BIN_EXE_animkit"))
        .arg(&example)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut url = String::new();
    BufReader::new(stdout).read_line(&mut url).unwrap();
    let port = url.trim().strip_prefix("http://127.0.0.1:").and_then(|r| r.strip_suffix('/')).unwrap().parse().unwrap();
    (server, port)
}

/// Connections that start a request and then send one more byte of a header every 100 ms, for
/// as long as the server keeps them open (at most 20 s). Dropping the value stops them.
struct Tricklers {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Tricklers {
    fn start(port: u16, count: usize) -> Tricklers {
        use std::io::Write;
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let mut streams: Vec<std::net::TcpStream> = (0..count)
            .map(|_| {
                let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
                s.write_all(format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ").as_bytes()).unwrap();
                s
            })
            .collect();
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            while !flag.load(Ordering::Relaxed) && start.elapsed().as_secs() < 20 {
                std::thread::sleep(std::time::Duration::from_millis(100));
                for s in &mut streams {
                    let _ = s.write_all(b"a"); // fails once the server has closed it
                }
            }
        });
        Tricklers { stop, thread: Some(thread) }
    }
}

impl Drop for Tricklers {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A line of `/proc/PID/status` (`Threads:`), as a number.
fn proc_status(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(key)).unwrap();
    line[key.len()..].trim().parse().unwrap()
}

/// CPU time (user + system) of a process so far, in clock ticks (`/proc/PID/stat` fields 14, 15).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after_name.split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// More trickling clients than the pool holds: a normal request still gets its page within a
/// second, and the server never holds more than the pool's threads.
#[cfg(target_os = "linux")]
#[test]
fn view_answers_while_trickling_clients_fill_the_pool() {
    let (server, port) = start_example_server(None);
    let _slow = Tricklers::start(port, 40);
    std::thread::sleep(std::time::Duration::from_millis(600)); // they are all slow by now
    let threads = proc_status(server.0.id(), "Threads:");
    // The pool's 16, the accepting thread and the signal handler's.
    assert!(threads <= 18, "{threads} threads");
    for _ in 0..3 {
        let start = Instant::now();
        let (head, body) = http_get(port, "/", &format!("127.0.0.1:{port}"));
        let took = start.elapsed();
        assert!(head.starts_with("HTTP/1.1 200") && !body.is_empty(), "{head}");
        assert!(took.as_millis() < 1000, "answered after {took:?}");
        eprintln!("answered in {took:?} beside 40 trickling connections ({threads} server threads)");
    }
}

/// A request head trickling in a byte at a time is cut at the request deadline (5 s in all, not
/// 5 s per read).
#[test]
fn view_closes_a_trickling_request_at_its_deadline() {
    use std::io::Read;
    let (_server, port) = start_example_server(None);
    let slow = Tricklers::start(port, 1);
    // A second connection to read from: the trickler's own socket is owned by its thread.
    let start = Instant::now();
    let mut probe = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut byte = [0u8; 1];
    probe.set_read_timeout(Some(std::time::Duration::from_secs(15))).unwrap();
    // The probe sends nothing: the server closes it at the deadline, reading returns 0 or an error.
    let n = probe.read(&mut byte).unwrap_or(0);
    let took = start.elapsed().as_secs_f64();
    drop(slow);
    assert_eq!(n, 0, "no response to an unfinished request");
    assert!((4.5..8.0).contains(&took), "closed after {took:.1} s");
}

/// Out of file handles (`ulimit -n 12`, so that a few connections exhaust them), the server
/// sleeps between attempts to accept instead of spinning, and serves again once handles free up.
#[cfg(target_os = "linux")]
#[test]
fn view_waits_when_out_of_file_handles() {
    let (server, port) = start_example_server(Some(12));
    let pid = server.0.id();
    let slow = Tricklers::start(port, 16);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let before = cpu_ticks(pid);
    std::thread::sleep(std::time::Duration::from_secs(1));
    let ticks = cpu_ticks(pid) - before;
    drop(slow);
    eprintln!("{ticks} clock ticks of CPU in 1 s with the file handles exhausted");
    assert!(ticks < 20, "the server spun: {ticks} ticks of CPU in one second");
    let start = Instant::now();
    let (head, _) = http_get(port, "/", &format!("127.0.0.1:{port}"));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    eprintln!("served again {:?} after the connections closed", start.elapsed());
}
