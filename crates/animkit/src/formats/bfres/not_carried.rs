//! Animations the model does not carry, named: Wii U shape (FSHA, index group 9) and scene
//! (FSCN, group 10) animations, found by their index-group names without reading the subfiles
//! (Switch: [`super::switch_anims::not_in_model`]).

use super::fres::{entries, Header};

/// Index group, and what a modder calls its subfiles.
const GROUPS: [(usize, &str); 2] = [(9, "shape animations"), (10, "scene animations")];

/// One line per kind present: its count and names.
pub fn wiiu(data: &[u8], header: &Header) -> Vec<String> {
    GROUPS
        .iter()
        .filter(|(g, _)| header.counts.get(*g).is_some_and(|&n| n > 0))
        .map(|&(g, plural)| match entries(data, header, g) {
            Ok(named) => named_line(plural, &named.into_iter().map(|(n, _)| n).collect::<Vec<_>>()),
            Err(e) => format!("{plural}: the index group does not read ({e})"),
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
