//! What a conversion is told: the output format and its settings, the input's read options, the
//! clips, the skeleton, and where to write.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::format::ReadOptions;
use crate::model::Skeleton;

/// How to write a package: the format and its settings.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct OutputOptions {
    /// A format or variant name (`ifp`, `anpk`, `glb`, `skb-le`); `None`: from the output path's
    /// extension (a directory output needs one).
    pub format: Option<String>,
    /// Format-specific settings (`key=value`), checked against [`crate::Format::write_params`].
    pub params: BTreeMap<String, String>,
}

impl OutputOptions {
    /// Writing as `format`, a format or variant name (`OutputOptions::to("anpk")`).
    pub fn to(format: impl Into<String>) -> OutputOptions {
        OutputOptions { format: Some(format.into()), ..OutputOptions::default() }
    }

    /// These options with the setting `key=value` added to [`OutputOptions::params`].
    pub fn with_param(mut self, key: impl Into<String>, value: impl Into<String>) -> OutputOptions {
        self.params.insert(key.into(), value.into());
        self
    }

    /// These options with these settings in place of [`OutputOptions::params`].
    pub fn with_params(self, params: BTreeMap<String, String>) -> OutputOptions {
        OutputOptions { params, ..self }
    }
}

/// How to convert a file.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// Reading the input; its `params` are checked against the input format's
    /// [`crate::Format::read_params`].
    pub read: ReadOptions,
    /// The output format and its settings.
    pub output: OutputOptions,
    /// Convert only these clips (by name, any case); empty for all. Every name must exist.
    pub clips: Vec<String>,
    /// Bind the tracks to this skeleton instead of the input's ([`super::load_skeleton`] reads one).
    pub skeleton: Option<Skeleton>,
    /// The translation keys are offsets from the rest pose (GTA III and Vice City non-skinned
    /// objects): add each bone's rest translation. Needs `skeleton`.
    pub rest_offsets: bool,
    /// Settings for whichever side takes them (the CLI's `--opt`): a key goes to reading when
    /// the input's format reads it and to writing when the output format writes it (to both
    /// when both do); a key neither takes is an error.
    pub params: BTreeMap<String, String>,
}

impl ConvertOptions {
    /// Converting to `format`, a format or variant name, with the other options at their
    /// defaults (`ConvertOptions::to("glb").with_clips(["walk"])`).
    pub fn to(format: impl Into<String>) -> ConvertOptions {
        ConvertOptions::default().with_output(OutputOptions::to(format))
    }

    /// These options with this [`ConvertOptions::output`].
    pub fn with_output(self, output: OutputOptions) -> ConvertOptions {
        ConvertOptions { output, ..self }
    }

    /// These options with this [`ConvertOptions::read`].
    pub fn with_read(self, read: ReadOptions) -> ConvertOptions {
        ConvertOptions { read, ..self }
    }

    /// These options converting only these [`ConvertOptions::clips`].
    pub fn with_clips<S: Into<String>>(self, clips: impl IntoIterator<Item = S>) -> ConvertOptions {
        ConvertOptions { clips: clips.into_iter().map(Into::into).collect(), ..self }
    }

    /// These options with this [`ConvertOptions::skeleton`] (or none).
    pub fn with_skeleton(self, skeleton: Option<Skeleton>) -> ConvertOptions {
        ConvertOptions { skeleton, ..self }
    }

    /// These options with [`ConvertOptions::rest_offsets`] set to `rest_offsets`.
    pub fn with_rest_offsets(self, rest_offsets: bool) -> ConvertOptions {
        ConvertOptions { rest_offsets, ..self }
    }

    /// These options with the setting `key=value` added to [`ConvertOptions::params`].
    pub fn with_param(mut self, key: impl Into<String>, value: impl Into<String>) -> ConvertOptions {
        self.params.insert(key.into(), value.into());
        self
    }

    /// These options with these settings in place of [`ConvertOptions::params`].
    pub fn with_params(self, params: BTreeMap<String, String>) -> ConvertOptions {
        ConvertOptions { params, ..self }
    }
}

/// Where a conversion writes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Destination {
    /// This file.
    File(PathBuf),
    /// Into this directory: `STEM.EXT`, or `STEM_CHARACTER.EXT` per character.
    Directory(PathBuf),
    /// `PREFIX.EXT`, or `PREFIX_CHARACTER.EXT` per character (what [`super::plan`] gives each job).
    Prefix(PathBuf),
}

impl Destination {
    /// A directory when `path` is an existing directory or ends with a path separator; a file
    /// otherwise.
    pub fn of(path: impl AsRef<Path>) -> Destination {
        let path = path.as_ref();
        let slash = path.as_os_str().to_string_lossy().chars().next_back().is_some_and(std::path::is_separator);
        if slash || path.is_dir() {
            Destination::Directory(path.to_path_buf())
        } else {
            Destination::File(path.to_path_buf())
        }
    }
}
