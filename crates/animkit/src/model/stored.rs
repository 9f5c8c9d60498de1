//! [`Stored`]: how a format stored a clip, kept for a rewrite in the same format.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// How the file a clip was read from stored it (key encodings, key frames, curves), kept by the
/// reader so that a writer of the same format can write unchanged tracks exactly as they were
/// instead of re-encoding them (re-encoding a fitted or quantised curve gives a larger file, or
/// keys a quantisation step away). Opaque: only the format that made it reads it, and its writer
/// checks that a track is unchanged before it uses what is kept for it; every other format and
/// the interchange writers ignore it. It is never serialised, and it takes no part in equality:
/// two clips with equal tracks are equal whether or not they remember their storage.
#[derive(Clone, Default)]
pub struct Stored(Option<Arc<dyn Any + Send + Sync>>);

impl Stored {
    /// A record of type `T`.
    pub fn new<T: Any + Send + Sync>(record: T) -> Stored {
        Stored(Some(Arc::new(record)))
    }

    /// The record, when there is one of type `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.as_deref().and_then(|r| r.downcast_ref())
    }
}

impl PartialEq for Stored {
    fn eq(&self, _: &Stored) -> bool {
        true
    }
}

impl fmt::Debug for Stored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Stored(..)" } else { "Stored(none)" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_found_by_its_type_only() {
        let stored = Stored::new(7u32);
        assert_eq!(stored.get::<u32>(), Some(&7));
        assert_eq!(stored.get::<i64>(), None);
        assert_eq!(Stored::default().get::<u32>(), None);
        assert_eq!(stored, Stored::default(), "no part in equality");
    }
}
