//! `csv`: texture-pattern tracks as a table (write-only interchange, `DESIGN.md` layer 3).
//!
//! `convert Animal_Bass.bfres -o bass.csv` writes one row per integer frame per material sampler
//! of every clip that has texture-index tracks:
//!
//! ```text
//! clip,material,sampler,frame,time,texture_index,texture
//! Bass_Color,Mt_Body,_a0,0,0,0,Bass_Alb.0
//! ```
//!
//! Frames run from 0 to the clip's last frame (`duration × rate`, at least the last key), at the
//! clip's frame rate (30 fps when it has none); values are the model's step evaluation
//! ([`crate::sample::sample_track`]). Fields are quoted (RFC 4180) when they hold a comma, quote or
//! line break. Other channels are not tables: the writer warns and names them, and a package
//! without texture-index tracks is refused (the file would be a bare header). Nothing can be read
//! back (`read = false`); use `model-json` for a lossless round trip.

use bytes::Bytes;

use crate::error::{Error, Result};
use crate::format::{Capabilities, Confidence, Document, Format, ReadOptions, Repaired, WriteOptions, Written};
use crate::lint::Finding;
use crate::model::{Package, Target, Values};
use crate::sample::{sample_track, Sampled};

/// The most rows one file may hold (a hostile duration cannot fill the disk).
const MAX_ROWS: usize = 10_000_000;

/// Texture-pattern tracks as CSV.
pub struct Csv;

/// One field, quoted when needed (RFC 4180).
pub(crate) fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The table of every texture-index track in `package`, and warnings for what it leaves out.
pub(crate) fn texture_table(package: &Package) -> Result<(String, Vec<String>)> {
    let mut out = String::from("clip,material,sampler,frame,time,texture_index,texture\n");
    let mut rows = 0usize;
    let mut skipped = 0usize;
    for clip in &package.clips {
        let fps = clip.frame_rate.filter(|f| f.is_finite() && *f > 0.0).unwrap_or(30.0);
        let end = clip.duration.max(clip.last_key_time());
        let last = (end * fps).round().clamp(0.0, MAX_ROWS as f32) as usize;
        for track in &clip.tracks {
            let Values::TextureIndex { textures, .. } = &track.values else {
                skipped += 1;
                continue;
            };
            let (material, sampler) = match &track.target {
                Target::Material { material, property } => (material.to_string(), property.to_string()),
                Target::Bone(b) => (b.label(), String::new()),
            };
            // The last frame is exclusive when it is the loop's end (frame_count frames, 0..n-1).
            let frames = if clip.looping == Some(true) && last > 0 { last - 1 } else { last };
            for f in 0..=frames {
                rows += 1;
                if rows > MAX_ROWS {
                    return Err(Error::unrepresentable(format!("more than {MAX_ROWS} rows")));
                }
                let t = f as f32 / fps;
                let Some(Sampled::TextureIndex(i)) = sample_track(track, t) else { continue };
                let name = textures.get(i as usize).map_or("", String::as_str);
                out.push_str(&format!(
                    "{},{},{},{f},{t},{i},{}\n",
                    field(&clip.name),
                    field(&material),
                    field(&sampler),
                    field(name)
                ));
            }
        }
    }
    let mut warnings = Vec::new();
    if skipped > 0 {
        warnings.push(format!(
            "{skipped} track(s) that are not texture patterns are not in the CSV (use model-json or glTF for them)"
        ));
    }
    if rows == 0 {
        return Err(Error::unrepresentable(
            "the package has no texture-pattern track: the CSV would hold only its header (use model-json or glTF)",
        ));
    }
    Ok((out, warnings))
}

impl Format for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn description(&self) -> &'static str {
        "CSV table of texture-pattern tracks (frame → texture name per material sampler); write-only"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["csv"]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: false, to_model: false, from_model: true, dump: false, archive: false, skeleton: false }
    }

    fn probe(&self, _bytes: &[u8]) -> Confidence {
        Confidence::No
    }

    fn read(&self, _bytes: Bytes, _options: &ReadOptions) -> Result<Box<dyn Document>> {
        Err(Error::unsupported("CSV tables are written only; read the source file (or its model-json)"))
    }

    fn from_model(&self, package: &Package, _options: &WriteOptions) -> Result<Written> {
        let (text, warnings) = texture_table(package)?;
        Ok(Written { document: Box::new(CsvDocument { text }), warnings })
    }

    fn undump(&self, _value: serde_json::Value) -> Result<Box<dyn Document>> {
        Err(Error::unsupported("CSV tables have no dump"))
    }
}

/// A written table.
pub struct CsvDocument {
    text: String,
}

impl Document for CsvDocument {
    fn format(&self) -> &'static dyn Format {
        &Csv
    }

    fn version(&self) -> String {
        "CSV".into()
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(self.text.clone().into_bytes())
    }

    fn to_model(&self) -> Result<Package> {
        Err(Error::unsupported("CSV tables do not convert back to the model"))
    }

    fn dump(&self) -> Result<serde_json::Value> {
        Ok(serde_json::Value::String(self.text.clone()))
    }

    fn lint(&self) -> Vec<Finding> {
        Vec::new()
    }

    fn repair(&self) -> Result<Repaired> {
        Ok(Repaired { document: Box::new(CsvDocument { text: self.text.clone() }), changes: Vec::new() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Clip, Interpolation, Track};

    #[test]
    fn one_row_per_frame_with_the_held_texture() {
        // Keys at frames 0 and 2 of a 4-frame looping clip at 30 fps: frames 0, 1 → "a"; 2, 3 → "b,c".
        let clip = Clip {
            name: "pat".into(),
            duration: 4.0 / 30.0,
            looping: Some(true),
            frame_rate: Some(30.0),
            tracks: vec![Track {
                target: Target::Material { material: "m".into(), property: "_a0".into() },
                interpolation: Interpolation::Step,
                times: vec![0.0, 2.0 / 30.0],
                values: Values::TextureIndex { indices: vec![0, 1], textures: vec!["a".into(), "b,c".into()].into() },
            }],
            ..Default::default()
        };
        let (text, warnings) = texture_table(&Package { clips: vec![clip], ..Default::default() }).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 5, "{text}");
        assert_eq!(rows[1], "pat,m,_a0,0,0,0,a");
        assert_eq!(rows[2].split(',').nth(6), Some("a"));
        assert!(rows[3].starts_with("pat,m,_a0,2,") && rows[3].ends_with(",1,\"b,c\""), "{}", rows[3]);
        assert!(rows[4].starts_with("pat,m,_a0,3,"), "{}", rows[4]);
    }

    #[test]
    fn a_table_without_texture_tracks_is_refused() {
        let track = Track {
            target: Target::Bone(crate::model::BoneRef::named("arm")),
            interpolation: Interpolation::Linear,
            times: vec![0.0],
            values: Values::Rotation(vec![glam::Quat::IDENTITY]),
        };
        let clip = Clip { name: "wave".into(), duration: 1.0, tracks: vec![track], ..Default::default() };
        let e = texture_table(&Package { clips: vec![clip], ..Default::default() }).unwrap_err();
        assert!(e.message.contains("no texture-pattern track"), "{e}");
    }
}
