//! `animkit formats`: the registry as a table.

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON Lines instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let yes = |b: bool| if b { "yes" } else { "-" };
    if !args.json {
        println!(
            "{:<10} {:<22} {:<5} {:<6} {:<6} {:<6} {:<16} description",
            "format", "extensions", "read", "write", "model", "dump", "also"
        );
    }
    for f in animkit::formats::REGISTRY {
        let c = f.capabilities();
        if args.json {
            crate::common::print_json_line(&serde_json::json!({
                "name": f.name(),
                "description": f.description(),
                "extensions": f.extensions(),
                "variants": f.variants(),
                "capabilities": c,
            }))?;
            continue;
        }
        let mut also = Vec::new();
        if c.archive {
            also.push("archive");
        }
        if c.skeleton {
            also.push("skeleton");
        }
        println!(
            "{:<10} {:<22} {:<5} {:<6} {:<6} {:<6} {:<16} {}",
            f.name(),
            f.extensions().join(","),
            yes(c.read),
            yes(c.from_model),
            yes(c.to_model),
            yes(c.dump),
            if also.is_empty() { "-".to_string() } else { also.join(",") },
            f.description()
        );
    }
    Ok(ExitCode::SUCCESS)
}
