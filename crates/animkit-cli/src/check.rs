//! `animkit check`: every problem, with offset and severity.

use std::path::PathBuf;
use std::process::ExitCode;

use animkit::lint::{Finding, Severity};
use anyhow::Result;
use serde::Serialize;

use crate::common::{open, print_json_line, FormatOptions};

#[derive(clap::Args)]
pub struct Args {
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per file, one per line.
    #[arg(long)]
    json: bool,
    /// Fail (exit 1) on warnings too, not only on errors.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    format: FormatOptions,
}

#[derive(Serialize)]
struct Report {
    file: String,
    format: Option<&'static str>,
    findings: Vec<Finding>,
}

/// Findings for one file: a strict parse error first (as an error finding), then the findings
/// on what a lenient parse could read. `None` (after saying why on stderr) when the file cannot
/// be read at all or is of no format animkit knows.
fn check_file(path: &std::path::Path, args: &Args) -> Option<Report> {
    let mut findings = Vec::new();
    let doc = match open(path, &args.format.read_options(false)) {
        Ok(doc) => Some(doc),
        Err(e) => {
            let mut f = Finding::new(Severity::Error, "unreadable", e.to_string());
            f.offset = e.offset;
            findings.push(f);
            open(path, &args.format.read_options(true)).ok()
        }
    };
    let format = doc.as_ref().map(|d| d.format().name());
    if let Some(doc) = &doc {
        findings.extend(doc.lint());
    } else {
        // Not a file animkit can check at all: missing, unreadable, or of no known format.
        let unknown = match std::fs::read(path) {
            Ok(bytes) => animkit::probe(&bytes, Some(path)).err().map(|e| e.to_string()),
            Err(e) => Some(format!("cannot read {}: {e}", path.display())),
        };
        if let Some(message) = unknown {
            eprintln!("animkit: {message}");
            return None;
        }
    }
    Some(Report { file: path.display().to_string(), format, findings })
}

/// Checks every file (on every core; output in the order the files were named).
pub fn run(args: Args) -> Result<ExitCode> {
    args.format.check_for(&crate::common::paths(&args.files, None), None)?;
    let mut code = ExitCode::SUCCESS;
    let threshold = if args.strict { Severity::Warning } else { Severity::Error };
    crate::ordered::for_each(
        &args.files,
        |path| check_file(path, &args),
        |report| {
            let Some(report) = report else {
                code = ExitCode::from(2);
                return Ok(());
            };
            if report.findings.iter().any(|f| f.severity >= threshold) && code == ExitCode::SUCCESS {
                code = ExitCode::from(1);
            }
            if args.json {
                print_json_line(&report)
            } else {
                print_text(&report);
                Ok(())
            }
        },
    )?;
    Ok(code)
}

fn print_text(report: &Report) {
    if report.findings.is_empty() {
        println!("{}: ok", report.file);
    }
    for f in &report.findings {
        let sev = f.severity.name();
        let at = f.offset.map(|o| format!(" @{o:#x}")).unwrap_or_default();
        let path = if f.path.is_empty() { String::new() } else { format!(" {}:", f.path) };
        let fix = if f.fixable { " [fixable]" } else { "" };
        println!("{}: {sev} {}{at}{path} {}{fix}", report.file, f.code, f.message);
    }
}
