"""Comparing a clip with the original through `animkit.sample`, and the worst errors per route."""

import zlib

import numpy as np

# (route, format) → [worst rotation (degrees), worst translation (source units)]
WORST = {}


def record(route, label, rotation, translation):
    worst = WORST.setdefault((route, label), [0.0, 0.0])
    worst[0], worst[1] = max(worst[0], rotation), max(worst[1], translation)


def identity(target):
    return (target.name, target.id, target.hash, target.index)


def tracks_of(clip):
    """(name, id, hash, index, channel) of each bone track, in order."""
    return [identity(t.target) + (t.channel,) for t in clip.tracks if t.target.kind == "bone"]


def same_bone(original, other):
    """Whether a track target of a round trip names the original's bone: by name, or the
    CryEngine CRC-32 of its name, or the index."""
    if original.name is not None and other.name is not None:
        return original.name.strip() == other.name.strip()
    if original.hash is not None and other.name is not None:
        return original.hash in (zlib.crc32(other.name.encode()), zlib.crc32(other.name.lower().encode()))
    if original.hash is not None and other.hash is not None:
        return original.hash == other.hash
    return original.index is not None and original.index == other.index


def angle_degrees(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    return np.degrees(2.0 * np.arccos(np.clip(np.abs(np.sum(a * b, axis=-1)), 0.0, 1.0)))


def differences(animkit, original, other, times, match=same_bone):
    """Per original bone track: (label, channel, worst rotation degrees, worst translation or
    scale difference) against `other`'s track of the same bone and channel (None if absent)."""
    times = np.asarray(times, dtype=np.float32)
    theirs = animkit.sample(other, times)
    out = []
    for mine in animkit.sample(original, times):
        if mine.target.kind != "bone":
            continue
        partner = next((s for s in theirs if s.channel == mine.channel and match(mine.target, s.target)), None)
        if partner is None:
            out.append((mine.target.label, mine.channel, None, None))
        elif mine.channel == "rotation":
            out.append((mine.target.label, mine.channel, float(angle_degrees(mine.value, partner.value).max()), 0.0))
        else:
            diff = np.abs(mine.value.astype(np.float64) - partner.value.astype(np.float64)).max()
            out.append((mine.target.label, mine.channel, 0.0, float(diff)))
    return out


def extent(clip, label, channel):
    """The largest range of a translation/scale track's values on one axis (for relative bounds)."""
    for track in clip.tracks:
        if track.target.label == label and track.channel == channel:
            values = track.values[1::3] if track.interpolation == "cubic_spline" else track.values
            return float(np.ptp(values, axis=0).max()) if len(values) else 0.0
    return 0.0


def key_times(track, count=7, rate=None):
    """`count` of a track's key times, spread evenly over its keys (the first and the last);
    with `rate`, over the keys that sit on its frames (within 1/20 frame, as glTF import snaps)."""
    times = np.asarray(track.times, dtype=np.float64)
    if rate is not None:
        times = times[np.abs(times * rate - np.round(times * rate)) <= 0.05]
    last = len(times) - 1
    return sorted({float(times[i * last // (count - 1)]) for i in range(count)}) if len(times) else []


REST = {"rotation": (0.0, 0.0, 0.0, 1.0), "translation": (0.0, 0.0, 0.0), "scale": (1.0, 1.0, 1.0)}


def rest_value(skeleton, target, channel):
    """What a bone without a track of `channel` plays: its rest pose (identity without a skeleton)."""
    bone = skeleton.find(target) if skeleton is not None else None
    if bone is None:
        return np.array(REST[channel])
    arrays = {"rotation": skeleton.rotations, "translation": skeleton.translations, "scale": skeleton.scales}
    return arrays[channel][bone].astype(np.float64)


def differences_at_keys(animkit, original, other, skeleton=None, rate=None, match=same_bone):
    """(label, channel, worst rotation degrees, worst translation) per original bone track, each
    compared at 7 of its own key times: a route that samples on frames keeps the keys, so what
    differs there is the format's quantisation. A track the other clip lacks is compared with
    the bone's rest pose in `skeleton` (which is what the bone then plays). With `rate`, only
    keys on that rate's frames count (a route that samples frames cannot keep the others)."""
    per_track = {(t.target.label, t.channel): key_times(t, rate=rate) for t in original.tracks if len(t.times)}
    times = np.array(sorted({x for ts in per_track.values() for x in ts}), dtype=np.float32)
    theirs = animkit.sample(other, times)
    out = []
    for mine in animkit.sample(original, times):
        if mine.target.kind != "bone":
            continue
        wanted = np.isin(times, np.array(per_track[(mine.target.label, mine.channel)], dtype=np.float32))
        if not wanted.any():
            continue
        partner = next((s for s in theirs if s.channel == mine.channel and match(mine.target, s.target)), None)
        value = partner.value if partner is not None else rest_value(skeleton, mine.target, mine.channel)
        mine_value = mine.value.astype(np.float64)[wanted]
        value = np.broadcast_to(value, mine.value.shape).astype(np.float64)[wanted]
        if mine.channel == "rotation":
            out.append((mine.target.label, mine.channel, float(angle_degrees(mine_value, value).max()), 0.0))
        else:
            out.append((mine.target.label, mine.channel, 0.0, float(np.abs(mine_value - value).max())))
    return out
