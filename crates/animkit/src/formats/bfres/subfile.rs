//! The clip an animation subfile (FSKA, FTXP, FSHU, FVIS, FMAA) becomes. What their readers
//! share is in [`super::platform`].

use crate::model::{Clip, Track};

/// The clip of a subfile: `frame_count` frames at `fps` (BFRES stores no frame rate, §5.5).
pub fn clip(name: &str, frame_count: i32, looping: bool, fps: f32, tracks: Vec<Track>) -> Clip {
    Clip {
        name: name.to_string(),
        duration: frame_count.max(0) as f32 / fps,
        looping: Some(looping),
        additive: false,
        frame_rate: Some(fps),
        tracks,
        ..Default::default()
    }
}
