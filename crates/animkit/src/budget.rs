//! One resource budget per top-level input, shared by every container nested in it.
//!
//! A limit per file or per structure does not bound a small hostile file: a 36 KB `.szs` whose
//! SARC lists 32 members that all point at one Yaz0 stream of 256 MB of zeros decodes 8 GB if
//! each member is decoded within its own limit. So the first read of an input creates a
//! [`Budget`] from its size and [`Limits`], and every container hands the same budget to the
//! reads of its members ([`crate::format::ReadOptions::nested`]): Yaz0 charges the size it decodes, SARC and
//! HIP the members they read and the keys their members convert to, whatever the nesting and
//! however often one member is referenced.
//!
//! A document keeps the budget of its read: operations on it (`to_model`, `lint`, `dump`) that
//! read members again charge the same budget.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};

/// Decoded bytes allowed per input byte by default.
pub const DECODED_PER_INPUT_BYTE: u64 = 20;
/// The smallest default decoded-bytes budget, so that small files decode normally.
pub const MIN_DECODED_BYTES: u64 = 256 << 20;
/// Work units (about one byte decoded or read, one key converted) per input byte by default:
/// about a second of CPU per megabyte.
pub const WORK_PER_INPUT_BYTE: u64 = 1000;
/// The smallest default work budget.
pub const MIN_WORK: u64 = 1 << 30;
/// Decoded bytes per key: the default key budget is the decoded-bytes budget over this (a model
/// key costs about this much memory).
pub const DECODED_BYTES_PER_KEY: u64 = 16;

/// Resource limits. Those that are `None` are derived from the size of the input (see
/// [`Budget::for_input`]), so any input costs at most about 20× its size (at least 256 MiB) in
/// memory and about a second of CPU per megabyte.
///
/// `Limits::default()`, then [`Limits::set`] or the fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The most keys one model conversion may produce.
    pub max_keys: u64,
    /// The most bytes all decoders together may produce from one input (decompression).
    pub decoded_bytes: Option<u64>,
    /// The most keys all conversions of one input's members may produce together.
    pub total_keys: Option<u64>,
    /// The most work units (bytes decoded or read, keys converted) one input may cost.
    pub work: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_keys: 1 << 28, decoded_bytes: None, total_keys: None, work: None }
    }
}

/// The names `Limits::set` and the `--limit` option know, with what each bounds.
pub const LIMIT_NAMES: &[(&str, &str)] = &[
    ("decoded", "bytes decompressed from one input, all nested containers together"),
    ("keys", "keys converted from one input, all nested members together"),
    ("work", "work units (bytes decoded or read, keys converted) for one input"),
];

impl Limits {
    /// Sets the limit `name` (one of [`LIMIT_NAMES`]) from a size such as `2GiB`, `500M`, `10k`
    /// or `123`.
    pub fn set(&mut self, name: &str, value: &str) -> std::result::Result<(), String> {
        let n = parse_size(value).ok_or_else(|| format!("\"{value}\" is not a size (e.g. 2GiB, 500M, 1000000)"))?;
        match name {
            "decoded" => self.decoded_bytes = Some(n),
            "keys" => {
                self.total_keys = Some(n);
                self.max_keys = n;
            }
            "work" => self.work = Some(n),
            _ => {
                let known: Vec<&str> = LIMIT_NAMES.iter().map(|(n, _)| *n).collect();
                return Err(format!("unknown limit \"{name}\" (known: {})", known.join(", ")));
            }
        }
        Ok(())
    }
}

/// `2GiB`, `2G`, `2GB` (all 2^31), `500k`, `123`: a number with an optional binary suffix.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits);
    let shift = match suffix.trim().to_ascii_lowercase().trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// What a budget counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Resource {
    /// Bytes produced by decoders (decompression).
    Decoded,
    /// Keys produced by model conversions.
    Keys,
    /// Work units: about one byte decoded or read, or one key converted.
    Work,
}

impl Resource {
    fn index(self) -> usize {
        self as usize
    }

    /// The name used by `--limit`.
    pub fn name(self) -> &'static str {
        match self {
            Resource::Decoded => "decoded",
            Resource::Keys => "keys",
            Resource::Work => "work",
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Resource::Decoded => "decoded bytes",
            Resource::Keys => "keys",
            Resource::Work => "work units",
        }
    }
}

/// The resources one top-level input may still use, shared (through an `Arc`) by every read
/// nested in it.
#[derive(Debug)]
pub struct Budget {
    input_len: u64,
    limits: [u64; 3],
    used: [AtomicU64; 3],
}

impl Budget {
    /// The budget of an input of `input_len` bytes: the limits that are set, and for the others
    /// 20× the size (at least 256 MiB) decoded, that over 16 in keys, and 1000 work units per
    /// byte (at least 2^30).
    pub fn for_input(input_len: usize, limits: &Limits) -> Arc<Budget> {
        let len = input_len as u64;
        let decoded = limits.decoded_bytes.unwrap_or(len.saturating_mul(DECODED_PER_INPUT_BYTE).max(MIN_DECODED_BYTES));
        let keys = limits.total_keys.unwrap_or(decoded / DECODED_BYTES_PER_KEY);
        let work = limits.work.unwrap_or(len.saturating_mul(WORK_PER_INPUT_BYTE).max(MIN_WORK));
        Arc::new(Budget { input_len: len, limits: [decoded, keys, work], used: Default::default() })
    }

    /// Uses `amount` of `what`, or fails (using nothing) when that would pass the limit. The
    /// error names the limit and how to raise it; `offset` is where in the current input the
    /// need arose.
    pub fn charge(&self, what: Resource, amount: u64, offset: Option<u64>) -> Result<()> {
        let limit = self.limits.get(what.index()).copied().unwrap_or(0);
        let Some(used) = self.used.get(what.index()) else { return Ok(()) };
        let previous =
            used.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| u.checked_add(amount).filter(|&t| t <= limit));
        match previous {
            Ok(_) => Ok(()),
            Err(already) => Err(Error::new(
                ErrorKind::Limit,
                offset,
                format!(
                    "{amount} more {unit} would pass the \"{name}\" limit of {limit} for this {len}-byte input \
                     ({already} already used by it and the files nested in it); raise it with \
                     --limit {name}=SIZE if the file is trusted",
                    unit = what.unit(),
                    name = what.name(),
                    len = self.input_len,
                ),
            )),
        }
    }

    /// How much of `what` has been used.
    pub fn used(&self, what: Resource) -> u64 {
        self.used.get(what.index()).map_or(0, |u| u.load(Ordering::Relaxed))
    }

    /// The limit on `what`.
    pub fn limit(&self, what: Resource) -> u64 {
        self.limits.get(what.index()).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("123"), Some(123));
        assert_eq!(parse_size("2GiB"), Some(2 << 30));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("500 MB"), Some(500 << 20));
        assert_eq!(parse_size("10k"), Some(10 << 10));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("1Q"), None);
        assert_eq!(parse_size("99999999999T"), None);
    }

    #[test]
    fn defaults_scale_with_the_input_and_have_a_floor() {
        let small = Budget::for_input(1000, &Limits::default());
        assert_eq!(small.limit(Resource::Decoded), 256 << 20);
        assert_eq!(small.limit(Resource::Keys), (256 << 20) / 16);
        assert_eq!(small.limit(Resource::Work), 1 << 30);
        let big = Budget::for_input(100 << 20, &Limits::default());
        assert_eq!(big.limit(Resource::Decoded), 2000 << 20);
        assert_eq!(big.limit(Resource::Work), 100_000 << 20);
        let mut limits = Limits::default();
        limits.set("decoded", "1k").unwrap();
        assert_eq!(Budget::for_input(1 << 30, &limits).limit(Resource::Decoded), 1024);
        assert!(limits.set("bytes", "1").unwrap_err().contains("known: decoded, keys, work"));
    }

    #[test]
    fn charges_add_up_and_fail_without_using_anything() {
        let mut limits = Limits::default();
        limits.set("decoded", "100").unwrap();
        let b = Budget::for_input(10, &limits);
        b.charge(Resource::Decoded, 60, None).unwrap();
        let e = b.charge(Resource::Decoded, 41, Some(4)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Limit);
        assert_eq!(e.offset, Some(4));
        assert!(e.message.contains("\"decoded\" limit of 100"), "{e}");
        assert!(e.message.contains("--limit decoded="), "{e}");
        assert_eq!(b.used(Resource::Decoded), 60);
        b.charge(Resource::Decoded, 40, None).unwrap();
        assert_eq!(b.used(Resource::Decoded), 100);
    }
}
