//! `animkit view`: a browser preview of animation files, built on the glTF export.
//!
//! Every input is turned into a GLB (GLB inputs are shown as they are, unless `--skeleton` asks
//! for a rebinding; everything else goes through the model and [`animkit::interchange::gltf`]).
//! The page (`view/index.html` + `view/app.js`) loads them with three.js' GLTFLoader; three.js
//! r187 is bundled into the binary (`view/vendor/`, see its README), so nothing is fetched from
//! the network. Two modes:
//!
//! - a local server bound to 127.0.0.1 only (`--port`, default: any free port), which prints its
//!   URL and serves the page, the three.js bundle and the GLBs until interrupted; requests whose
//!   `Host` is not the loopback address are refused (no DNS rebinding). At most
//!   [`pool::MAX_CONNECTIONS`] connections are served at once (see [`pool`] for who waits or gets
//!   a 503); a request head must arrive whole within [`REQUEST_DEADLINE`] and a response go out
//!   within [`RESPONSE_DEADLINE`], whatever the pace of the client; when accepting fails (out of
//!   file handles), the server waits before trying again instead of spinning;
//! - `--html OUT.html`: one self-contained file (three.js as a `data:` module in an import map,
//!   the GLBs as base64) that works from `file://` without a network.

mod pool;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use animkit::interchange::gltf::{base64_encode, Gltf};
use animkit::{Format, WriteOptions};
use anyhow::{Context, Result};
use serde_json::json;

use crate::common::{load_skeleton, open, paths, write_output, FormatOptions};

/// three.js r187 with GLTFLoader and OrbitControls, one minified ES module (MIT).
const THREE_BUNDLE: &str = include_str!("view/vendor/three-bundle.min.js");
const INDEX_HTML: &str = include_str!("view/index.html");
const APP_JS: &str = include_str!("view/app.js");
const APP_CSS: &str = include_str!("view/app.css");

/// Time a client has to send its whole request head.
const REQUEST_DEADLINE: Duration = Duration::from_secs(5);

/// Time a response has to go out whole (the largest GLB takes milliseconds on loopback).
const RESPONSE_DEADLINE: Duration = Duration::from_secs(60);

/// The first and the longest pause after a failed `accept`.
const ACCEPT_PAUSE: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));

#[derive(clap::Args)]
pub struct Args {
    /// Files to show (two or more play side by side, in sync).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// A file holding the skeleton to bind tracks to (any format that carries one).
    #[arg(long)]
    skeleton: Option<PathBuf>,
    /// The port to serve on (127.0.0.1 only); 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Write one self-contained HTML file (scripts and data inlined) instead of serving.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    #[command(flatten)]
    format: FormatOptions,
}

/// One input, ready for the page.
struct Shown {
    name: String,
    format: String,
    glb: Vec<u8>,
    warnings: Vec<String>,
}

fn prepare(path: &Path, args: &Args, skeleton: Option<&animkit::model::Skeleton>) -> Result<Shown> {
    let options = args.format.read_options(false);
    let doc = open(path, &options)?;
    let format = doc.format().name().to_string();
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    if format == "gltf" && skeleton.is_none() && bytes.starts_with(b"glTF") {
        return Ok(Shown { name, format, glb: bytes, warnings: Vec::new() });
    }
    let mut package = doc.to_model()?;
    if let Some(s) = skeleton {
        package.skeleton = Some(s.clone());
    }
    let written = Gltf.from_model(&package, &WriteOptions::default().with_variant("glb"))?;
    let glb = written.document.write()?;
    Ok(Shown { name, format, glb, warnings: written.warnings })
}

/// Text that may sit inside a `<script>` element.
fn script_safe(text: &str) -> String {
    text.replace("</", "<\\/")
}

/// The page. `inline`: everything in the file; else the bundle and the GLBs are fetched from us.
fn page(shown: &[Shown], inline: bool) -> String {
    let files: Vec<_> = shown
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let source =
                if inline { json!({"element": format!("glb-{i}")}) } else { json!({"url": format!("files/{i}.glb")}) };
            json!({"name": s.name, "format": s.format, "warnings": s.warnings, "bytes": s.glb.len(), "source": source})
        })
        .collect();
    let three = if inline {
        format!("data:text/javascript;base64,{}", base64_encode(THREE_BUNDLE.as_bytes()))
    } else {
        "./vendor/three-bundle.min.js".to_string()
    };
    let importmap = json!({"imports": {"three": three}}).to_string();
    let mut data = String::new();
    if inline {
        for (i, s) in shown.iter().enumerate() {
            data.push_str(&format!(
                "<script type=\"application/octet-stream\" id=\"glb-{i}\">{}</script>\n",
                base64_encode(&s.glb)
            ));
        }
    }
    let title = shown.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(" | ");
    INDEX_HTML
        .replace("{{TITLE}}", &html_escape(&title))
        .replace("{{CSS}}", APP_CSS)
        .replace("{{IMPORTMAP}}", &script_safe(&importmap))
        .replace("{{FILES}}", &script_safe(&serde_json::Value::Array(files).to_string()))
        .replace("{{DATA}}", &data)
        .replace("{{APP}}", &script_safe(APP_JS))
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

pub fn run(args: Args) -> Result<ExitCode> {
    args.format.check_for(&paths(&args.files, args.skeleton.as_ref()), None)?;
    let read_options = args.format.read_options(false);
    let skeleton = args.skeleton.as_deref().map(|p| load_skeleton(p, &read_options)).transpose()?;
    let mut shown = Vec::new();
    for path in &args.files {
        let s = prepare(path, &args, skeleton.as_ref())?;
        for w in s.warnings.iter().take(3) {
            eprintln!("{}: warning: {w}", s.name);
        }
        if s.warnings.len() > 3 {
            eprintln!("{}: and {} more warning(s), listed on the page", s.name, s.warnings.len() - 3);
        }
        shown.push(s);
    }
    if let Some(out) = &args.html {
        let html = page(&shown, true);
        write_output(out, html.as_bytes(), None, false)?;
        eprintln!("wrote {} ({} bytes)", out.display(), html.len());
        return Ok(ExitCode::SUCCESS);
    }
    let listener =
        TcpListener::bind(("127.0.0.1", args.port)).with_context(|| format!("binding 127.0.0.1:{}", args.port))?;
    let port = listener.local_addr()?.port();
    println!("http://127.0.0.1:{port}/");
    std::io::stdout().flush()?;
    eprintln!("serving {} file(s) on 127.0.0.1 only; press Ctrl-C to stop", shown.len());
    let index = page(&shown, false);
    serve(&listener, &Server { index, shown, port })
}

/// Accepts connections until the process is stopped, each served on a thread of the pool.
fn serve(listener: &TcpListener, server: &Server) -> ! {
    let pool = pool::Pool::default();
    let mut pause = ACCEPT_PAUSE.0;
    std::thread::scope(|scope| loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => Arc::new(stream),
            Err(e) => {
                pause = pause_after_accept_error(&e, pause);
                continue;
            }
        };
        pause = ACCEPT_PAUSE.0;
        let Some(slot) = pool.acquire(&stream) else {
            refuse_busy(&stream);
            continue;
        };
        scope.spawn(move || {
            if let Err(e) = server.handle(&stream, &slot) {
                eprintln!("animkit view: {e}");
            }
        });
    })
}

/// After a failed `accept`: a connection that went away is no reason to wait; anything else (out
/// of file handles: EMFILE, ENFILE, ENOBUFS) would fail again at once, so this sleeps, doubling
/// the pause up to a second. Returns the next pause.
fn pause_after_accept_error(e: &std::io::Error, pause: Duration) -> Duration {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionReset, Interrupted};
    if matches!(e.kind(), Interrupted | ConnectionAborted | ConnectionReset) {
        return pause;
    }
    if pause == ACCEPT_PAUSE.0 {
        eprintln!("animkit view: accepting a connection failed ({e}); trying again shortly");
    }
    std::thread::sleep(pause);
    (pause * 2).min(ACCEPT_PAUSE.1)
}

/// Tells a client no slot freed up in time.
fn refuse_busy(stream: &TcpStream) {
    let body = "busy: too many connections, try again\n";
    let mut out = Deadline::new(stream, Duration::from_secs(1));
    let _ = write!(
        out,
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
         Retry-After: 1\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// A connection whose reads (or writes) must all end by one point in time: each read or write
/// waits at most for what is left, so a client trickling a byte at a time cannot stretch it.
struct Deadline<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl<'a> Deadline<'a> {
    fn new(stream: &'a TcpStream, within: Duration) -> Self {
        Deadline { stream, until: Instant::now() + within }
    }

    fn left(&self) -> std::io::Result<Duration> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "client too slow, connection closed"));
        }
        Ok(left)
    }
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.set_read_timeout(Some(self.left()?))?;
        let mut stream = self.stream;
        stream.read(buf)
    }
}

impl Write for Deadline<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.set_write_timeout(Some(self.left()?))?;
        let mut stream = self.stream;
        stream.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let mut stream = self.stream;
        stream.flush()
    }
}

struct Server {
    index: String,
    shown: Vec<Shown>,
    port: u16,
}

/// A parsed request: method, path (query removed) and `Host` header.
#[derive(Debug, PartialEq)]
struct Request {
    method: String,
    path: String,
    host: Option<String>,
}

/// Reads a request head (at most 16 KiB).
fn read_request(stream: &mut impl Read) -> std::io::Result<Option<Request>> {
    let mut reader = BufReader::new(stream.take(16 * 1024));
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else { return Ok(None) };
    let path = target.split(['?', '#']).next().unwrap_or("/").to_string();
    let method = method.to_string();
    let mut host = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 {
            return Ok(None); // cut short: no blank line
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((k, v)) = header.split_once(':') {
            if k.trim().eq_ignore_ascii_case("host") {
                host = Some(v.trim().to_string());
            }
        }
    }
    Ok(Some(Request { method, path, host }))
}

impl Server {
    fn allowed_host(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return true }; // HTTP/1.0 without Host
        let port = self.port.to_string();
        ["127.0.0.1", "localhost", "[::1]"].iter().any(|h| host == *h || host == format!("{h}:{port}"))
    }

    fn route(&self, path: &str) -> Option<(&'static str, &[u8])> {
        match path {
            "/" | "/index.html" => Some(("text/html; charset=utf-8", self.index.as_bytes())),
            "/vendor/three-bundle.min.js" => Some(("text/javascript; charset=utf-8", THREE_BUNDLE.as_bytes())),
            _ => {
                let i: usize = path.strip_prefix("/files/")?.strip_suffix(".glb")?.parse().ok()?;
                Some(("model/gltf-binary", &self.shown.get(i)?.glb))
            }
        }
    }

    fn handle(&self, stream: &TcpStream, slot: &pool::Slot) -> std::io::Result<()> {
        let Some(request) = read_request(&mut Deadline::new(stream, REQUEST_DEADLINE))? else { return Ok(()) };
        slot.head_read();
        let (status, ctype, body): (&str, &str, &[u8]) = if !self.allowed_host(request.host.as_deref()) {
            ("403 Forbidden", "text/plain", b"forbidden host\n")
        } else if request.method != "GET" && request.method != "HEAD" {
            ("405 Method Not Allowed", "text/plain", b"GET only\n")
        } else {
            match self.route(&request.path) {
                Some((ctype, body)) => ("200 OK", ctype, body),
                None => ("404 Not Found", "text/plain", b"not found\n"),
            }
        };
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
             X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let mut out = Deadline::new(stream, RESPONSE_DEADLINE);
        out.write_all(head.as_bytes())?;
        if request.method != "HEAD" {
            out.write_all(body)?;
        }
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_request_head() {
        let mut text: &[u8] = b"GET /files/1.glb?x=2 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nAccept: */*\r\n\r\n";
        let r = read_request(&mut text).unwrap().unwrap();
        assert_eq!(
            r,
            Request { method: "GET".into(), path: "/files/1.glb".into(), host: Some("127.0.0.1:8000".into()) }
        );
        let mut cut: &[u8] = b"GET / HTTP/1.1\r\nHost: x";
        assert_eq!(read_request(&mut cut).unwrap(), None);
        let mut empty: &[u8] = b"";
        assert_eq!(read_request(&mut empty).unwrap(), None);
    }

    #[test]
    fn routes_and_hosts() {
        let shown = vec![Shown { name: "a.ifp".into(), format: "ifp".into(), glb: b"glTF".to_vec(), warnings: vec![] }];
        let server = Server { index: "<html>".into(), shown, port: 8000 };
        assert_eq!(server.route("/").unwrap().1, b"<html>");
        assert_eq!(server.route("/files/0.glb").unwrap().1, b"glTF");
        assert!(server.route("/files/1.glb").is_none());
        assert!(server.route("/files/../0.glb").is_none());
        assert!(server.route("/etc/passwd").is_none());
        assert!(server.allowed_host(Some("127.0.0.1:8000")));
        assert!(server.allowed_host(Some("localhost:8000")));
        assert!(!server.allowed_host(Some("evil.example:8000")));
        assert!(!server.allowed_host(Some("127.0.0.1:9000")));
    }

    #[test]
    fn the_inline_page_is_self_contained() {
        let shown =
            vec![Shown { name: "a</script>.ifp".into(), format: "ifp".into(), glb: vec![1, 2, 3], warnings: vec![] }];
        let html = page(&shown, true);
        assert!(!html.contains("{{"), "a placeholder was left");
        assert!(html.contains("data:text/javascript;base64,"));
        assert!(html.contains(">AQID</script>"), "the GLB as base64");
        assert!(!html.contains("http://") && !html.contains("https://"), "nothing is fetched");
        // The file name cannot close the script element it sits in.
        assert_eq!(html.matches("a</script>").count(), 0);
        let served = page(&shown, false);
        assert!(served.contains("./vendor/three-bundle.min.js") && served.contains("files/0.glb"));
    }
}
