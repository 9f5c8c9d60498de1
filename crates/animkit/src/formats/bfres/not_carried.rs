//! Animations the model does not carry, named: shape (FSHA; Wii U index group 9) and scene
//! (FSCN, group 10) animations, found by their index-group (Wii U) or dict (Switch) names
//! without reading the subfiles.

use super::anims::{Kind, Listing};

/// One line per kind present: its count and names.
pub fn lines(data: &[u8], listing: Listing) -> Vec<String> {
    [(Kind::Shape, "shape animations"), (Kind::Scene, "scene animations")]
        .into_iter()
        .filter(|&(k, _)| listing.count(k) > 0)
        .map(|(k, plural)| match listing.names(data, k) {
            Ok(names) => named_line(plural, &names),
            Err(e) => format!("{} {plural}: their names do not read ({e})", listing.count(k)),
        })
        .collect()
}

/// `N KIND not carried into the model: a, b, c…` (at most eight names shown).
pub fn named_line(plural: &str, names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(8).map(String::as_str).collect();
    let more =
        if names.len() > shown.len() { format!(" and {} more", names.len() - shown.len()) } else { String::new() };
    let kind = if names.len() == 1 { plural.replacen("animations", "animation", 1) } else { plural.to_string() };
    format!("{} {kind} not carried into the model: {}{more}", names.len(), shown.join(", "))
}
