//! `animkit formats`: the registry as a table.

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON Lines instead of a table.
    #[arg(long)]
    json: bool,
    /// List the `--opt KEY=VALUE` settings each format reads and writes.
    #[arg(long)]
    params: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.params && !args.json {
        print_params();
        return Ok(ExitCode::SUCCESS);
    }
    let yes = |b: bool| if b { "yes" } else { "-" };
    if !args.json {
        println!(
            "{:<10} {:<22} {:<5} {:<6} {:<6} {:<6} {:<16} description",
            "format", "extensions", "read", "write", "model", "dump", "also"
        );
    }
    for f in animkit::REGISTRY.formats() {
        let c = f.capabilities();
        if args.json {
            crate::common::print_json_line(&serde_json::json!({
                "name": f.name(),
                "description": f.description(),
                "extensions": f.extensions(),
                "variants": f.variants(),
                "capabilities": c,
                "read_params": f.read_params(),
                "write_params": f.write_params(),
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

/// The `--opt` keys, per format and direction.
fn print_params() {
    let common = animkit::REGISTRY.common_read_params();
    let lists = animkit::REGISTRY
        .formats()
        .iter()
        .flat_map(|f| [(f.name(), "reads", f.read_params()), (f.name(), "writes", f.write_params())])
        .chain([("any format", "reads", common)]);
    for (name, action, params) in lists.filter(|(_, _, p)| !p.is_empty()) {
        println!("{name} {action}:");
        for p in params {
            let setting = format!("{}={}", p.key, p.values);
            if setting.len() > 32 {
                println!("  {setting}\n  {:<32} {}", "", p.description);
            } else {
                println!("  {setting:<32} {}", p.description);
            }
        }
    }
}
