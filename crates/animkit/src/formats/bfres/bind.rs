//! Which model's skeleton the animations of a file bind to.
//!
//! A file may hold several models (Mario Kart 8's kart parts: three 3-bone `ArmB_Ysi*` models
//! before the 7-bone `BodyB_Ysi` its animations move). The game binds an FSKA to the model it
//! is played on, bone animation to bone by name (the FSKA's bind-index table is `0xFFFF` on disk,
//! §3.1). So the skeleton chosen is the model's whose bone names match the most bone-animation
//! names over all FSKA; on a tie, the first such model in storage order. A file without
//! skeletal animations binds to its first model with a skeleton. The read parameter
//! `model=NAME` forces a model.

use rustc_hash::FxHashSet;

use super::fska::Fska;
use crate::error::{Error, Result};
use crate::model::Skeleton;

/// A model's name and skeleton.
#[derive(Debug, Clone)]
pub(crate) struct ModelSkeleton {
    pub(crate) model: String,
    pub(crate) skeleton: Skeleton,
}

/// Why a model was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reason {
    /// Named by the `model` read parameter.
    Forced,
    /// It holds the most of the animated bones.
    MostTargets,
    /// No skeletal animation binds: the first model with a skeleton.
    First,
}

/// The model chosen, and how well each model matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    /// Index into the models passed to [`choose`].
    pub(crate) index: usize,
    pub(crate) model: String,
    pub(crate) bones: usize,
    pub(crate) reason: Reason,
    /// The distinct bone names the skeletal animations target.
    pub(crate) targets: usize,
    /// For every model (in order): its name and how many of the targets it holds.
    pub(crate) matches: Vec<(String, usize)>,
}

/// Chooses the model whose skeleton `targets` (bone-animation names) bind to; `None` when no
/// model has a skeleton. `forced` names the model to use; an unknown name is an error listing
/// the models.
pub(crate) fn choose(
    models: &[ModelSkeleton],
    targets: &FxHashSet<&str>,
    forced: Option<&str>,
) -> Result<Option<Binding>> {
    let matches: Vec<(String, usize)> = models
        .iter()
        .map(|m| (m.model.clone(), m.skeleton.bones.iter().filter(|b| targets.contains(b.name.as_str())).count()))
        .collect();
    let (index, reason) = if let Some(name) = forced {
        let index = models.iter().position(|m| m.model == name).ok_or_else(|| {
            let names: Vec<&str> = models.iter().map(|m| m.model.as_str()).collect();
            Error::unsupported(format!(
                "model={name}: no model with a skeleton has that name (models: {})",
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ))
        })?;
        (index, Reason::Forced)
    } else {
        // The first model with the most matches (max_by_key keeps the last: the list runs backwards).
        let best = matches.iter().map(|m| m.1).enumerate().rev().max_by_key(|&(_, n)| n);
        match best {
            None => return Ok(None),
            Some((i, 0)) => (i, if targets.is_empty() { Reason::First } else { Reason::MostTargets }),
            Some((i, _)) => (i, Reason::MostTargets),
        }
    };
    let Some(chosen) = models.get(index) else { return Ok(None) };
    Ok(Some(Binding {
        index,
        model: chosen.model.clone(),
        bones: chosen.skeleton.bones.len(),
        reason,
        targets: targets.len(),
        matches,
    }))
}

/// The skeleton the bone animations of `anims` bind to among `models` ([`choose`]), with the
/// binding that says which and why.
pub(crate) fn bind(
    models: Vec<ModelSkeleton>,
    anims: &[Fska],
    forced: Option<&str>,
) -> Result<Option<(Binding, Skeleton)>> {
    let targets: FxHashSet<&str> = anims.iter().flat_map(|a| a.bones.iter().map(|b| b.name.as_str())).collect();
    let Some(binding) = choose(&models, &targets, forced)? else { return Ok(None) };
    let skeleton = models.into_iter().nth(binding.index).map(|m| m.skeleton);
    Ok(skeleton.map(|s| (binding, s)))
}

/// The `info` line of a file whose skeletal animations find no model with a skeleton in it.
pub(crate) fn unbound_note(anims: usize) -> String {
    format!(
        "skeleton: none: the file holds no model with a skeleton for its {anims} skeletal animations \
         (bind them with --skeleton MODEL_FILE)"
    )
}

impl Binding {
    /// One line for `info`: the skeleton, its bone count, the model and why.
    pub(crate) fn note(&self) -> String {
        let matched = self.matches.get(self.index).map_or(0, |m| m.1);
        let why = match self.reason {
            Reason::Forced => {
                format!("as model={} asks; it holds {matched} of the {} animated bones", self.model, self.targets)
            }
            Reason::MostTargets => {
                format!("it holds {matched} of the {} bones the skeletal animations target", self.targets)
            }
            Reason::First => "the first model with a skeleton (no skeletal animation to bind)".to_string(),
        };
        let mut note = format!("skeleton: model \"{}\", {} bones: {why}", self.model, self.bones);
        let others: Vec<String> = self
            .matches
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != self.index)
            .map(|(_, (name, n))| if self.targets > 0 { format!("{name} {n}") } else { name.clone() })
            .collect();
        if !others.is_empty() {
            note.push_str(&format!(" (other models: {}; --opt model=NAME picks one)", others.join(", ")));
        }
        note
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Bone;

    fn model(name: &str, bones: &[&str]) -> ModelSkeleton {
        let bones = bones.iter().map(|b| Bone { name: b.to_string(), ..Default::default() }).collect();
        ModelSkeleton { model: name.into(), skeleton: Skeleton { bones } }
    }

    /// Mario Kart 8's kart body in small: three 3-bone arm models first, then the body.
    fn kart() -> Vec<ModelSkeleton> {
        vec![
            model("ArmB_YsiL", &["ArmBL", "ArmB_B", "ArmB_F"]),
            model("ArmB_YsiM", &["ArmBM", "ArmB_B", "ArmB_F"]),
            model("BodyB_Ysi", &["Jnt_Body", "Jnt_ArmB", "Jnt_Handle"]),
        ]
    }

    #[test]
    fn the_model_holding_the_animated_bones_is_chosen() {
        let targets = FxHashSet::from_iter(["Jnt_Body", "Jnt_ArmB", "Jnt_Handle"]);
        let b = choose(&kart(), &targets, None).unwrap().unwrap();
        assert_eq!((b.index, b.model.as_str(), b.reason), (2, "BodyB_Ysi", Reason::MostTargets));
        assert_eq!(b.matches.iter().map(|m| m.1).collect::<Vec<_>>(), [0, 0, 3]);
        assert_eq!(
            b.note(),
            "skeleton: model \"BodyB_Ysi\", 3 bones: it holds 3 of the 3 bones the skeletal animations target \
             (other models: ArmB_YsiL 0, ArmB_YsiM 0; --opt model=NAME picks one)"
        );
    }

    #[test]
    fn a_tie_keeps_the_first_and_no_animation_takes_the_first() {
        let targets = FxHashSet::from_iter(["ArmB_B"]);
        let b = choose(&kart(), &targets, None).unwrap().unwrap();
        assert_eq!((b.model.as_str(), b.reason), ("ArmB_YsiL", Reason::MostTargets));
        let b = choose(&kart(), &FxHashSet::default(), None).unwrap().unwrap();
        assert_eq!((b.model.as_str(), b.reason), ("ArmB_YsiL", Reason::First));
        assert!(choose(&[], &targets, None).unwrap().is_none());
    }

    #[test]
    fn a_forced_model_wins_and_an_unknown_one_is_an_error() {
        let targets = FxHashSet::from_iter(["Jnt_Body"]);
        let b = choose(&kart(), &targets, Some("ArmB_YsiM")).unwrap().unwrap();
        assert_eq!((b.index, b.reason), (1, Reason::Forced));
        let e = choose(&kart(), &targets, Some("Nope")).unwrap_err();
        assert!(e.message.contains("models: ArmB_YsiL, ArmB_YsiM, BodyB_Ysi"), "{}", e.message);
    }
}
