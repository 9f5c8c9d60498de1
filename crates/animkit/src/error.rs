//! The one error type of the library.
//!
//! Every error from a reader says *what* went wrong, *where* (the byte offset in the input, when
//! there is one) and *in which structure* (a path such as `ANP3 animation 12 "run_civi" /
//! sequence 3`). Paths are built only on the error path, so they cost nothing when parsing succeeds.

use std::fmt;
use std::sync::Arc;

/// What kind of failure an [`Error`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ends before a structure that it announces.
    Truncated,
    /// A value in the input breaks the format's rules (bad magic, unknown type, impossible count).
    Invalid,
    /// The input is well-formed but uses something this library does not implement.
    Unsupported,
    /// The data cannot be represented in the requested output (a name too long, a value out of range).
    Unrepresentable,
    /// A configured resource limit (keys, bytes, nesting) was reached.
    Limit,
    /// The file system failed.
    Io,
}

/// An error with its byte offset and structure path.
///
/// Two errors are equal when their kind, offset, path and message are (the I/O error they come
/// from, if any, is not compared).
#[derive(Debug, Clone)]
pub struct Error {
    /// What kind of failure this is.
    pub kind: ErrorKind,
    /// Byte offset in the input where the problem was found.
    pub offset: Option<u64>,
    /// Structure path from the outermost to the innermost structure, e.g. `["ANP3", "animation 3"]`.
    pub path: Vec<String>,
    /// What went wrong, for a person.
    pub message: String,
    /// The I/O error this one reports ([`std::error::Error::source`]).
    pub(crate) io: Option<Arc<std::io::Error>>,
}

impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        (self.kind, self.offset, &self.path, &self.message) == (other.kind, other.offset, &other.path, &other.message)
    }
}

impl Eq for Error {}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` at `offset` (when there is one) saying `message`.
    pub fn new(kind: ErrorKind, offset: Option<u64>, message: impl Into<String>) -> Self {
        Error { kind, offset, path: Vec::new(), message: message.into(), io: None }
    }

    /// A value at `offset` that breaks the format's rules.
    pub fn invalid(offset: usize, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid, Some(offset as u64), message)
    }

    /// The input ends before `needed` bytes at `offset`.
    pub fn truncated(offset: usize, needed: usize, available: usize) -> Self {
        Self::new(ErrorKind::Truncated, Some(offset as u64), format!("need {needed} bytes, only {available} remain"))
    }

    /// Data that cannot be written in the requested form.
    pub fn unrepresentable(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unrepresentable, None, message)
    }

    /// Something well-formed that is not implemented.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, None, message)
    }

    /// Prepends a structure to the error's path (outer structures are added last).
    pub fn within(mut self, structure: impl Into<String>) -> Self {
        self.path.insert(0, structure.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ErrorKind::Truncated => "truncated",
            ErrorKind::Invalid => "invalid",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Unrepresentable => "cannot represent",
            ErrorKind::Limit => "limit reached",
            ErrorKind::Io => "I/O error",
        };
        write!(f, "{kind}")?;
        if let Some(offset) = self.offset {
            write!(f, " at byte {offset} (0x{offset:X})")?;
        }
        if !self.path.is_empty() {
            write!(f, " in {}", self.path.join(" / "))?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.io.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        let message = e.to_string();
        Error { io: Some(Arc::new(e)), ..Error::new(ErrorKind::Io, None, message) }
    }
}

/// Adds a structure path segment to the error of a `Result`, lazily.
pub trait Context<T> {
    /// Prepends the structure `structure()` names to the error's path, when there is an error.
    fn within<S: Into<String>>(self, structure: impl FnOnce() -> S) -> Result<T>;
}

impl<T> Context<T> for Result<T> {
    #[inline]
    fn within<S: Into<String>>(self, structure: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|e| e.within(structure()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_offset_and_path() {
        let e: Result<()> = Err(Error::truncated(100, 16, 4));
        let e = e.within(|| "sequence 2").within(|| "ANP3").unwrap_err();
        assert_eq!(e.to_string(), "truncated at byte 100 (0x64) in ANP3 / sequence 2: need 16 bytes, only 4 remain");
    }

    #[test]
    fn io_errors_stay_the_source() {
        use std::error::Error as _;
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = Error::from(io).within("ped.ifp");
        assert_eq!(e.kind, ErrorKind::Io);
        let source = e.source().and_then(|s| s.downcast_ref::<std::io::Error>()).unwrap();
        assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        assert!(Error::invalid(0, "x").source().is_none());
    }
}
