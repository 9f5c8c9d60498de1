//! One input converted in memory: read it, build each output file from the model, read each back
//! and count what it lost; [`Prepared::write`] then writes the files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use serde::Serialize;

use super::characters;
use super::loss::{self, Counts};
use super::options::{ConvertOptions, Destination};
use crate::builtin::REGISTRY;
use crate::error::{Error, Result};
use crate::format::{Document, Format, WriteOptions};
use crate::formats;
use crate::model::Package;
use crate::registry::check_write_params;

/// What one written (or prepared) file holds and what its conversion lost.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct FileReport {
    /// Where the file goes.
    pub path: PathBuf,
    /// The format written (its name).
    pub format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The variant written, when the format has several.
    pub variant: Option<&'static str>,
    /// The character this file holds, when an archive was split per character.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub character: Option<String>,
    /// Whether the package written carried a skeleton.
    pub with_skeleton: bool,
    /// What went in.
    pub input: Counts,
    /// What the written file holds, read back; `None` for formats animkit cannot read (CSV).
    pub kept: Option<Counts>,
    /// What the output lost against the input, with counts ("12 of 32 tracks dropped").
    pub losses: Vec<String>,
    /// The writer's warnings grouped by cause: one line and a count each.
    pub warnings: Vec<String>,
    /// Every warning the writer gave (one per track where it works per track).
    pub details: Vec<String>,
    /// The file's size.
    pub bytes: usize,
}

/// A file built in memory, not yet written.
#[non_exhaustive]
pub struct PreparedFile {
    /// What the file holds and lost.
    pub report: FileReport,
    /// The file's bytes.
    pub data: Vec<u8>,
}

/// A conversion built in memory: every file of one input, not yet written.
#[non_exhaustive]
pub struct Prepared {
    /// The input file.
    pub input: PathBuf,
    /// The input's format (its name).
    pub input_format: &'static str,
    /// What was done on the way (characters merged, rest translations added).
    pub notes: Vec<String>,
    /// What applies to the whole input rather than one file.
    pub warnings: Vec<String>,
    /// Every file to write, one per character or one in all.
    pub files: Vec<PreparedFile>,
}

/// What [`super::convert()`] did.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ConvertReport {
    /// The input file.
    pub input: PathBuf,
    /// The input's format (its name).
    pub input_format: &'static str,
    /// What was done on the way (characters merged, rest translations added).
    pub notes: Vec<String>,
    /// What applies to the whole input rather than one file.
    pub warnings: Vec<String>,
    /// Every file written.
    pub files: Vec<FileReport>,
}

/// A Switch BFRES (or a container holding one) written as BFRES is written for Switch
/// (`platform=switch`) unless the write settings name a platform; a warning when they name Wii U,
/// which a Switch game does not load.
fn switch_platform(doc: &dyn Document, output: &dyn Format, params: &mut BTreeMap<String, String>) -> Option<String> {
    let switch =
        output.name() == "bfres" && doc.notes().iter().any(|n| n.ends_with(formats::bfres::fres::PLATFORM_NOTE));
    if !switch {
        return None;
    }
    let platform = params.entry("platform".into()).or_insert_with(|| "switch".into());
    (platform == "wiiu").then(|| {
        "the input is a Switch BFRES; platform=wiiu writes BFRES for Wii U (big-endian, version 4.5.0.3), \
         which a Switch game does not load (`animkit replace` changes animations inside the original file)"
            .to_string()
    })
}

/// Builds every file that converting `input` to `destination` gives, in memory.
pub fn prepare(input: &Path, destination: &Destination, options: &ConvertOptions) -> Result<Prepared> {
    let file = match destination {
        Destination::File(path) => Some(path.as_path()),
        Destination::Directory(_) | Destination::Prefix(_) => None,
    };
    let (format, variant) = output_format(options.output.format.as_deref(), file)?;
    check_write_params(format, &options.output.params)?;
    let (doc, mut params) = open_input(input, options, format)?;
    let into_dir = file.is_none();
    let parts = characters::parts(doc.as_ref(), options, into_dir, format.capabilities().skeleton)?;
    let input_format = doc.format().name();
    let mut warnings = doc.not_in_model();
    warnings.extend(switch_platform(doc.as_ref(), format, &mut params));
    warnings.extend(parts.warnings);
    // The model is built: the document and the input's bytes are not needed while writing.
    drop(doc);
    let mut files: Vec<PreparedFile> = Vec::with_capacity(parts.parts.len());
    for part in parts.parts {
        let path = match destination {
            Destination::File(path) => path.clone(),
            Destination::Directory(dir) => {
                let stem = input.file_stem().unwrap_or_else(|| "out".as_ref());
                output_name(&dir.join(stem), part.character.as_deref(), format, variant)
            }
            Destination::Prefix(prefix) => output_name(prefix, part.character.as_deref(), format, variant),
        };
        if files.iter().any(|f| same_path(&f.report.path, &path)) {
            return Err(Error::unsupported(format!("two characters would both be written to {}", path.display())));
        }
        let mut file =
            encode_as(&part.package, &path, format, variant, &params).map_err(|e| match &part.character {
                Some(c) => e.within(format!("character {c}")),
                None => e,
            })?;
        file.report.character = part.character;
        files.push(file);
    }
    Ok(Prepared { input: input.to_path_buf(), input_format, notes: parts.notes, warnings, files })
}

impl Prepared {
    /// Writes every file atomically (creating missing directories); refuses to overwrite the input.
    /// Stops at the first file that cannot be written; the files before it stay written.
    pub fn write(self) -> Result<ConvertReport> {
        if let Some(f) = self.files.iter().find(|f| crate::io::same_file(&self.input, &f.report.path)) {
            return Err(Error::unsupported(format!("refusing to overwrite the input {}", f.report.path.display())));
        }
        let mut files = Vec::with_capacity(self.files.len());
        for file in self.files {
            let path = &file.report.path;
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| io_error(e, dir))?;
            }
            crate::io::write_atomic(path, &file.data).map_err(|e| io_error(e, path))?;
            files.push(file.report);
        }
        let Prepared { input, input_format, notes, warnings, .. } = self;
        Ok(ConvertReport { input, input_format, notes, warnings, files })
    }
}

/// The output format and variant: the one `name` names, or else the one of `path`'s extension.
/// A format's name leaves the variant to the extension when that is one of the format's
/// (`--to gltf -o x.glb` writes GLB), else to the variant of the same name (`--to gltf` into a
/// folder writes `.gltf`).
pub fn output_format(name: Option<&str>, path: Option<&Path>) -> Result<(&'static dyn Format, Option<&'static str>)> {
    let extension = path.and_then(|p| p.extension()).and_then(|e| e.to_str()).unwrap_or_default();
    let found = match (name, path) {
        (Some(name), _) => {
            let (format, variant) = REGISTRY.by_name(name).ok_or_else(|| {
                Error::unsupported(format!("unknown output format \"{name}\" (see `animkit formats`)"))
            })?;
            let by_extension =
                REGISTRY.by_extension(extension).filter(|(f, _)| f.name() == format.name()).and_then(|(_, v)| v);
            let same_name = || format.variants().iter().find(|&&v| v.eq_ignore_ascii_case(name)).copied();
            (format, variant.or(by_extension).or_else(same_name))
        }
        (None, Some(path)) => REGISTRY.by_extension(extension).ok_or_else(|| {
            Error::unsupported(format!("cannot tell the output format from \"{}\"; name one (--to)", path.display()))
        })?,
        (None, None) => return Err(Error::unsupported("writing into a directory needs a format name (--to)")),
    };
    if !found.0.capabilities().from_model {
        return Err(Error::unsupported(format!("{} cannot be written from the model yet", found.0.name())));
    }
    Ok(found)
}

/// Reads `input` with the read settings (checked against its format's declared keys) and those
/// of [`ConvertOptions::params`] it takes; returns it with the write settings for `output`.
pub(super) fn open_input(
    input: &Path,
    options: &ConvertOptions,
    output: &dyn Format,
) -> Result<(Box<dyn Document>, BTreeMap<String, String>)> {
    let within = |e: Error| e.within(input.display().to_string());
    let data = std::fs::read(input).map_err(|e| within(Error::from(e)))?;
    let format = REGISTRY.probe(&data, Some(input)).map_err(within)?;
    REGISTRY.check_read_params(format, &options.read.params)?;
    let mut read = options.read.clone();
    let mut write = options.output.params.clone();
    for (key, value) in &options.params {
        let one = BTreeMap::from([(key.clone(), value.clone())]);
        let reads = REGISTRY.check_read_params(format, &one);
        let writes = check_write_params(output, &one);
        if let (Err(r), Err(w)) = (&reads, &writes) {
            return Err(Error::unsupported(format!("{}; and {}", r.message, w.message)));
        }
        if reads.is_ok() {
            read.params.insert(key.clone(), value.clone());
        }
        if writes.is_ok() {
            write.insert(key.clone(), value.clone());
        }
    }
    Ok((super::read::read_as(format, Bytes::from(data), &read).map_err(within)?, write))
}

/// Builds `package` as `format`, reads the result back and checks what it lost.
pub(super) fn encode_as(
    package: &Package,
    path: &Path,
    format: &'static dyn Format,
    variant: Option<&'static str>,
    params: &BTreeMap<String, String>,
) -> Result<PreparedFile> {
    check_write_params(format, params)?;
    loss::check_input(package)?;
    let options = WriteOptions { variant: variant.map(str::to_string), params: params.clone() };
    let written = format.from_model(package, &options)?;
    // Read back before the bytes are copied out, so the two are not in memory together.
    let summary = if format.capabilities().to_model {
        let summary = written.document.summary().map_err(|e| e.within("the written file, read back"))?;
        Some(summary)
    } else {
        None
    };
    let data = written.document.write()?;
    drop(written.document);
    let kept = summary.as_ref().map(Counts::of_summary);
    let skeleton_kept = summary.as_ref().and_then(|s| s.skeleton_bones).is_some_and(|n| n > 0);
    let warnings = loss::group(&written.warnings, package);
    let losses = loss::check(package, kept, skeleton_kept, &warnings)?;
    let report = FileReport {
        path: path.to_path_buf(),
        format: format.name(),
        variant,
        character: None,
        with_skeleton: package.skeleton.is_some(),
        input: Counts::of(package),
        kept,
        losses,
        warnings,
        details: written.warnings,
        bytes: data.len(),
    };
    Ok(PreparedFile { report, data })
}

/// `PREFIX.EXT` or `PREFIX_CHARACTER.EXT`, with the extension `format`/`variant` files take.
pub(super) fn output_name(
    prefix: &Path,
    character: Option<&str>,
    format: &dyn Format,
    variant: Option<&str>,
) -> PathBuf {
    let ext = format
        .extensions()
        .iter()
        .find(|&&e| Some(e) == variant)
        .or_else(|| format.extensions().first())
        .copied()
        .unwrap_or("out");
    let mut name = prefix.as_os_str().to_os_string();
    if let Some(character) = character {
        name.push(format!("_{character}"));
    }
    name.push(format!(".{ext}"));
    PathBuf::from(name)
}

pub(super) fn io_error(e: std::io::Error, path: &Path) -> Error {
    Error::from(e).within(path.display().to_string())
}

/// Whether two paths are the same when ASCII case is ignored.
pub(super) fn same_path(a: &Path, b: &Path) -> bool {
    a.as_os_str().to_string_lossy().eq_ignore_ascii_case(&b.as_os_str().to_string_lossy())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::output_format;

    fn variant(name: Option<&str>, path: Option<&str>) -> Option<&'static str> {
        output_format(name, path.map(Path::new)).unwrap().1
    }

    #[test]
    fn a_format_name_takes_its_variant_from_the_extension_or_its_own_name() {
        assert_eq!(variant(Some("gltf"), Some("out/x.glb")), Some("glb"));
        assert_eq!(variant(Some("gltf"), Some("out/x.gltf")), Some("gltf"));
        assert_eq!(variant(Some("gltf"), None), Some("gltf"));
        assert_eq!(variant(Some("glb"), Some("out/x.gltf")), Some("glb"), "a named variant wins");
        assert_eq!(variant(None, Some("x.glb")), Some("glb"));
        assert_eq!(variant(Some("ifp"), Some("x.glb")), None, "another format's extension is not a variant");
    }
}
