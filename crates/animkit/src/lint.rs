//! Findings of `check`, shared by every format (the result of `repair` is
//! [`crate::format::Repaired`]).

use serde::Serialize;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Severity {
    /// Noteworthy but harmless.
    Info,
    /// Loads in the game but is likely a mistake, or breaks other tools.
    Warning,
    /// The game or a strict reader fails, or data is lost.
    Error,
}

impl Severity {
    /// The lower-case name (`info`, `warning`, `error`), as in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One problem in a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// How serious it is.
    pub severity: Severity,
    /// A stable short identifier (`trailing-bytes`, `frame-data-size-too-small`).
    pub code: &'static str,
    /// Byte offset of the offending field, when there is one.
    pub offset: Option<u64>,
    /// The structure it is in (`animation 12 "run_civi" / sequence 3`).
    pub path: String,
    /// What is wrong, for a person.
    pub message: String,
    /// Whether `repair` fixes it.
    pub fixable: bool,
}

impl Finding {
    /// A finding of `severity` with the stable `code`, saying `message`.
    pub fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Self {
        Finding { severity, code, offset: None, path: String::new(), message: message.into(), fixable: false }
    }

    /// The finding at byte `offset`.
    pub fn at(mut self, offset: usize) -> Self {
        self.offset = Some(offset as u64);
        self
    }

    /// The finding in the structure `path`.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// The finding marked as fixed by `repair`.
    pub fn fixable(mut self) -> Self {
        self.fixable = true;
        self
    }
}
