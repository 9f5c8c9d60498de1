//! What a conversion writes from one document: the clips picked by name, the skeleton bound, and
//! for archives whose clips bind to several skeletons (a HIP with several characters), one package
//! per character (into a directory) or all characters merged into one (into one file).

use crate::error::{Error, Result};
use crate::format::Document;
use crate::model::{Bone, BoneRef, Clip, Package, Skeleton, Target};

use super::options::ConvertOptions;

/// One package to write, and the character it holds when the input was split per character.
pub(crate) struct Part {
    /// Sanitised for a file name: the file is `STEM_CHARACTER.EXT`.
    pub character: Option<String>,
    pub package: Package,
}

/// The packages to write from `doc`, and what was done to make them (notes, warnings).
pub(crate) struct Parts {
    pub parts: Vec<Part>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

/// The packages `doc` converts to. `into_dir`: the output is a directory, so an archive whose clips
/// bind to several skeletons gives one package per skeleton; otherwise they are merged when the
/// output format carries skeletons (`merges`), or the package skeleton alone is bound.
pub(crate) fn parts(doc: &dyn Document, options: &ConvertOptions, into_dir: bool, merges: bool) -> Result<Parts> {
    let mut out = Parts { parts: Vec::new(), notes: Vec::new(), warnings: Vec::new() };
    let caps = doc.format().capabilities();
    let mut packages =
        if options.skeleton.is_none() && caps.archive && caps.skeleton { doc.packages()? } else { Vec::new() };
    select_clips(&mut packages, &options.clips)?;
    packages.retain(|p| !p.clips.is_empty());
    if into_dir && packages.len() > 1 {
        let parts = packages.into_iter().map(|p| Part { character: Some(file_part(&p.name)), package: p });
        out.parts.extend(parts);
        return Ok(out);
    }
    if packages.len() > 1 && merges {
        let names: Vec<String> = packages.iter().map(|p| p.name.clone()).collect();
        out.notes.push(format!(
            "{} skeletons ({}) merged: bones are named CHARACTER/BONE; a directory output gives one file per skeleton",
            names.len(),
            names.join(", ")
        ));
        out.parts.push(Part { character: None, package: merge_characters(packages) });
        return Ok(out);
    }
    if packages.len() > 1 {
        let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
        out.warnings.push(format!(
            "the clips bind to {} different skeletons ({}); only those of the package skeleton are bound in one file: convert into a directory (-o DIR/) for one file per skeleton",
            packages.len(),
            names.join(", ")
        ));
    }
    let mut package = match packages.pop() {
        // The clips picked bind to one character: that package carries its skeleton.
        Some(one) if packages.is_empty() && !options.clips.is_empty() => one,
        _ => {
            let (package, warnings) = doc.to_model_with_warnings()?;
            out.warnings.extend(warnings);
            package
        }
    };
    select_clips(std::slice::from_mut(&mut package), &options.clips)?;
    if let Some(s) = &options.skeleton {
        package.skeleton = Some(s.clone());
    }
    if options.rest_offsets {
        if options.skeleton.is_none() {
            return Err(Error::unsupported("rest offsets need a skeleton (--skeleton) to take the rest pose from"));
        }
        let tracks = package.add_rest_translations();
        out.notes.push(format!("rest translation added to {tracks} translation tracks"));
    }
    out.parts.push(Part { character: None, package });
    Ok(out)
}

/// A character name as part of a file name: letters, digits, `.`, `_` and `-` kept, others `_`.
fn file_part(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect()
}

/// Keeps only the clips named in `names` (any case), or all when none is named; a name that no
/// clip has is an error.
fn select_clips(packages: &mut [Package], names: &[String]) -> Result<()> {
    if names.is_empty() || packages.is_empty() {
        return Ok(());
    }
    let named = |clip: &Clip| names.iter().any(|n| clip.name.eq_ignore_ascii_case(n));
    if let Some(missing) =
        names.iter().find(|n| !packages.iter().flat_map(|p| &p.clips).any(|c| c.name.eq_ignore_ascii_case(n)))
    {
        return Err(Error::unsupported(format!("no clip \"{missing}\"")));
    }
    for p in packages {
        p.clips.retain(named);
    }
    Ok(())
}

/// Packages of different characters as one: the skeletons side by side (bones renamed
/// `CHARACTER/BONE`, parents shifted), every track re-targeted by that name. Tracks whose bone is
/// not in their package's skeleton keep `CHARACTER/LABEL` (the glTF exporter makes them root nodes).
fn merge_characters(packages: Vec<Package>) -> Package {
    let mut bones: Vec<Bone> = Vec::new();
    let mut clips = Vec::new();
    let up_axis = packages.first().map(|p| p.up_axis).unwrap_or_default();
    for p in packages {
        let offset = bones.len();
        if let Some(s) = &p.skeleton {
            for b in &s.bones {
                bones.push(Bone {
                    name: format!("{}/{}", p.name, b.name),
                    parent: b.parent.map(|x| x + offset),
                    ..b.clone()
                });
            }
        }
        for mut clip in p.clips {
            for track in &mut clip.tracks {
                if let Target::Bone(r) = &mut track.target {
                    let merged = p.skeleton.as_ref().and_then(|s| s.find(r)).and_then(|i| bones.get(offset + i));
                    let name = match merged {
                        Some(bone) => bone.name.clone(),
                        None => format!("{}/{}", p.name, r.label()),
                    };
                    *r = BoneRef::named(name);
                }
            }
            clips.push(clip);
        }
    }
    Package { name: String::new(), up_axis, clips, skeleton: (!bones.is_empty()).then_some(Skeleton { bones }) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Interpolation, Track, Transform, Values};

    fn character(name: &str, bones: &[&str], clip: &str) -> Package {
        let skeleton = Skeleton {
            bones: bones
                .iter()
                .enumerate()
                .map(|(i, b)| Bone {
                    name: b.to_string(),
                    parent: i.checked_sub(1),
                    rest: Transform::default(),
                    ..Default::default()
                })
                .collect(),
        };
        let track = Track {
            target: Target::Bone(BoneRef::named(bones[bones.len() - 1])),
            interpolation: Interpolation::Linear,
            times: vec![0.0],
            values: Values::Translation(vec![glam::Vec3::ZERO]),
        };
        let clip = Clip { name: clip.into(), duration: 1.0, tracks: vec![track], ..Default::default() };
        Package { name: name.into(), clips: vec![clip], skeleton: Some(skeleton), ..Default::default() }
    }

    #[test]
    fn merged_characters_keep_their_hierarchies_and_bindings() {
        let merged = merge_characters(vec![character("a", &["root", "arm"], "wave"), character("b", &["hip"], "jump")]);
        let bones = &merged.skeleton.as_ref().unwrap().bones;
        let names: Vec<&str> = bones.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["a/root", "a/arm", "b/hip"]);
        assert_eq!(bones.iter().map(|b| b.parent).collect::<Vec<_>>(), [None, Some(0), None]);
        let targets: Vec<String> = merged.clips.iter().map(|c| c.tracks[0].target.label()).collect();
        assert_eq!(targets, ["a/arm", "b/hip"]);
    }

    #[test]
    fn clip_selection_is_case_blind_and_names_a_missing_clip() {
        let mut packages = vec![character("a", &["root"], "Walk"), character("b", &["root"], "run")];
        select_clips(&mut packages, &["walk".into()]).unwrap();
        assert_eq!(packages.iter().map(|p| p.clips.len()).collect::<Vec<_>>(), [1, 0]);
        let e = select_clips(&mut packages, &["moonwalk".into()]).unwrap_err();
        assert!(e.message.contains("no clip \"moonwalk\""), "{e}");
    }

    #[test]
    fn character_names_become_file_name_parts() {
        assert_eq!(file_part("sb tongue/2:x"), "sb_tongue_2_x");
        assert_eq!(file_part("boss-1.b"), "boss-1.b");
    }
}
