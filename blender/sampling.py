"""Keys of one bone channel read back from its F-curves.

The keys are the keyframes (every component's, merged). A channel whose curves share their
keyframes and one interpolation comes back in kind: CONSTANT → step, LINEAR → linear, BEZIER
with free handles at a third of each segment → cubic Hermite with the handles' tangents (what
the importer wrote). Anything else (mixed interpolation, Blender's auto handles after an edit,
easing modes) is sampled: the keyframes plus every frame of the output rate in between, linear.
"""

import numpy as np

# How far (in frames) a handle may sit from a third of its segment and still read as Hermite.
THIRD_TOLERANCE = 1e-3


def _frames(fcurve):
    return np.array([k.co.x for k in fcurve.keyframe_points], dtype=np.float64)


def _kind(fcurves, frames):
    """'CONSTANT', 'LINEAR' or 'BEZIER' when every curve has exactly `frames` and uses one
    interpolation (the last key's does not count), else None."""
    kinds = set()
    for fcurve in fcurves:
        own = _frames(fcurve)
        if len(own) != len(frames) or not np.allclose(own, frames, atol=1e-6):
            return None
        kinds.update(k.interpolation for k in list(fcurve.keyframe_points)[:-1])
    if len(kinds) > 1:
        return None
    kind = kinds.pop() if kinds else "LINEAR"
    return kind if kind in ("CONSTANT", "LINEAR", "BEZIER") else None


def _hermite_tangents(fcurve, fps):
    """(in, out) tangents per second from free handles at thirds, or None."""
    points = list(fcurve.keyframe_points)
    tin, tout = [], []
    for i, k in enumerate(points):
        if k.handle_left_type != "FREE" or k.handle_right_type != "FREE":
            return None
        for side, neighbour in ((k.handle_left, i - 1), (k.handle_right, i + 1)):
            if 0 <= neighbour < len(points):
                third = (points[neighbour].co.x - k.co.x) / 3.0
                if abs((side.x - k.co.x) - third) > THIRD_TOLERANCE * max(1.0, abs(third)):
                    return None
        dx_in, dx_out = k.co.x - k.handle_left.x, k.handle_right.x - k.co.x
        tin.append((k.co.y - k.handle_left.y) * fps / dx_in if dx_in > 0 else 0.0)
        tout.append((k.handle_right.y - k.co.y) * fps / dx_out if dx_out > 0 else 0.0)
    return np.array(tin), np.array(tout)


def _sample_frames(frames, step):
    """The keyframes plus every `step` frames between the first and the last."""
    if len(frames) == 0:
        return frames
    grid = np.arange(frames[0], frames[-1], step) if step > 0 else np.empty(0)
    return np.unique(np.round(np.concatenate((frames, grid)), 6))


def read_channel(fcurves, fps, out_rate, sample=False):
    """(frames, values (n, k), tangents or None, kind) of the component curves `fcurves`
    (ordered by array index), `fps` the scene's rate, `out_rate` the format's; `sample` forces
    sampling (Euler curves, whose keys are not quaternion keys)."""
    frames = np.unique(np.concatenate([_frames(f) for f in fcurves]))
    kind = None if sample else _kind(fcurves, frames)
    tangents = None
    if kind == "BEZIER":
        pairs = [_hermite_tangents(f, fps) for f in fcurves]
        if all(p is not None for p in pairs):
            tangents = (np.stack([p[0] for p in pairs], axis=-1), np.stack([p[1] for p in pairs], axis=-1))
        else:
            kind = None
    if kind is None:
        frames = _sample_frames(frames, fps / out_rate)
        values = np.stack([[f.evaluate(x) for x in frames] for f in fcurves], axis=-1)
        return frames, values, None, "SAMPLED"
    values = np.stack([[k.co.y for k in f.keyframe_points] for f in fcurves], axis=-1)
    return frames, values, tangents, kind
