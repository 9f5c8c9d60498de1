"""Blender actions out to a game format, through animkit's model and writers.

Each action becomes one clip: a track per bone channel that has F-curves (`sampling`), keys
turned from the pose bone's basis back into the bone's local transform (`rig.Rest`), the
target (tag, CRC-32, index) and interpolation the clip was imported with, its name, duration,
rate and flags from the action's `animkit` properties. A channel the file did not have is
written only when it moves or leaves the rest pose: an untouched bone gains no track.
Archives (IFP, HIP/HOP) get the clips as replacements of their animations of the same name.
"""

import os
import re
import tempfile
import warnings
from pathlib import Path

import animkit
import numpy as np
from mathutils import Euler

from . import actions, props, quat, rig, sampling

PATH = re.compile(r'^pose\.bones\["((?:[^"\\]|\\.)*)"\]\.(rotation_quaternion|rotation_euler|location|scale)$')
CHANNELS = {"rotation_quaternion": "rotation", "rotation_euler": "euler", "location": "translation", "scale": "scale"}
# The rotation interpolation each format's engine uses, for tracks made in Blender.
ROTATION_DEFAULT = {"ifp": "slerp", "skb": "slerp", "hip": "slerp", "cryengine": "nlerp", "bfres": "linear"}
# Output variants by file extension and, for AUTO, by the stored format and version.
EXTENSION_FORMAT = {
    ".ifp": "ifp",
    ".anm": "skb",
    ".hip": "hip",
    ".hop": "hip",
    ".caf": "cryengine",
    ".i_caf": "cryengine",
    ".dba": "cryengine",
    ".bfres": "bfres",
}
IDENTITY = {"rotation": np.array([0.0, 0.0, 0.0, 1.0]), "translation": np.zeros(3), "scale": np.ones(3)}


def _unescape(name):
    return re.sub(r"\\(.)", r"\1", name)


def _used(mode, prop):
    """Whether Blender poses the bone with `prop` in rotation `mode` (it ignores the other kind)."""
    if prop == "rotation_quaternion":
        return mode == "QUATERNION"
    if prop == "rotation_euler":
        return len(mode) == 3
    return True


def _channel_curves(action, obj):
    """{(bone, channel): [F-curves by array index]} of the action's pose-bone curves."""
    found = {}
    for fcurve in actions.fcurves(action, obj):
        match = PATH.match(fcurve.data_path)
        if match is None or not len(fcurve.keyframe_points):
            continue
        bone = _unescape(match.group(1))
        if bone not in obj.data.bones or not _used(obj.pose.bones[bone].rotation_mode, match.group(2)):
            continue
        found.setdefault((bone, CHANNELS[match.group(2)]), {})[fcurve.array_index] = fcurve
    return {key: [curves[i] for i in sorted(curves)] for key, curves in found.items()}


def _still(channel, values):
    return np.allclose(values, IDENTITY[channel], atol=1e-5) or (
        channel == "rotation" and np.allclose(-values, IDENTITY[channel], atol=1e-5)
    )


def _euler_quaternions(obj, bone, values):
    """Euler angles (n, 3) in the pose bone's rotation order as w x y z quaternions, each in the
    hemisphere of the one before."""
    mode = obj.pose.bones[bone].rotation_mode
    order = mode if len(mode) == 3 else "XYZ"
    out = np.array([list(Euler(v, order).to_quaternion()) for v in values])
    for i in range(1, len(out)):
        if np.dot(out[i], out[i - 1]) < 0:
            out[i] = -out[i]
    return out


def _track(obj, rest, key, curves, context):
    fps, out_rate, stored, fmt = context
    bone, channel = key
    size = 4 if channel == "rotation" else 3
    if len(curves) != size:
        return None, f"{bone} {channel}: {len(curves)} of {size} F-curves"
    euler = channel == "euler"
    frames, values, tangents, kind = sampling.read_channel(curves, fps, out_rate, sample=euler)
    if euler:
        channel, values, key = "rotation", _euler_quaternions(obj, bone, values), (bone, "rotation")
        size = 4
    known = stored.get(key)
    if known is None and _still(channel, values):
        return None, None
    if channel == "rotation":
        values = quat.from_blender(values)
        tangents = tangents and tuple(quat.from_blender(t) for t in tangents)
    values = rest.from_basis(bone, channel, values)
    if kind == "CONSTANT":
        interpolation = "step"
    elif kind == "BEZIER":
        interpolation = "cubic_spline"
        tin, tout = (rest.from_basis(bone, channel, t, tangents=True) for t in tangents)
        values = np.stack((tin, values, tout), axis=1).reshape(-1, size)
    elif known is not None and known["interpolation"] not in ("step", "cubic_spline"):
        interpolation = known["interpolation"]
    else:
        interpolation = ROTATION_DEFAULT.get(fmt, "slerp") if channel == "rotation" else "linear"
    target_info = (known or stored.get((bone, None)) or {}).get("target") or props.bone_identity(obj.data.bones[bone])
    target = animkit.Target(**target_info)
    times = (frames / fps).astype(np.float32)
    return animkit.Track(target, channel, times, values.astype(np.float32), interpolation), None


def clip_from_action(obj, action, fps, fmt):
    """The animkit.Clip of `action` on the armature `obj`, and what could not be exported."""
    info = props.clip_info(action)
    stored = {}
    order = []
    for t in info.get("tracks", []):
        stored[(t["bone"], t["channel"])] = t
        stored.setdefault((t["bone"], None), t)
        order.append((t["bone"], t["channel"]))
    out_rate = float(info.get("frame_rate") or fps)
    rest = rig.Rest(obj)
    curves = _channel_curves(action, obj)
    keys = [k for k in order if k in curves] + sorted(k for k in curves if k not in stored)
    tracks, problems = [], []
    for key in keys:
        track, problem = _track(obj, rest, key, curves[key], (fps, out_rate, stored, fmt))
        if track is not None:
            tracks.append(track)
        if problem:
            problems.append(problem)
    last = max((float(t.times[-1]) for t in tracks if len(t.times)), default=0.0)
    looping = info.get("looping")
    clip = animkit.Clip(
        info.get("clip", action.name),
        tracks,
        duration=max(float(info.get("duration", 0.0)), last),
        looping=None if looping is None else bool(looping),
        additive=bool(info.get("additive", 0)),
        frame_rate=info.get("frame_rate"),
    )
    return clip, problems


def _variant(path, fmt, info, choice):
    if choice and choice != "AUTO":
        return choice
    suffix = path.suffix.lower()
    version = str(info.get("version", ""))
    if fmt == "ifp":
        return "anpk" if version.upper() == "ANPK" else "anp3"
    if fmt == "cryengine":
        if suffix in (".i_caf", ".dba"):
            return suffix[1:]
        return "crytek" if version.startswith("CryTek") else "caf"
    if fmt in ("skb", "hip"):
        # An .anm's version reads "V1 big-endian"; HIP archives (GameCube) hold big-endian assets.
        v2 = "-v2" if version.startswith("V2") else ""
        return f"skb{v2}-{'le' if 'little' in version else 'be'}"
    return fmt


def _write(package, path, variant):
    """Writes `package` to `path` as `variant` (atomically); returns the conversion warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        animkit.write(package, path, variant)
    return [str(w.message) for w in caught]


def _encode(package, variant, suffix):
    """The bytes animkit writes for `package` as `variant`, and its conversion warnings."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / f"out{suffix}"
        caught = _write(package, out, variant)
        return out.read_bytes(), caught


def _write_bytes(path, data):
    """Replaces `path` with `data` atomically (a temporary file beside it, then a rename)."""
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False) as file:
        file.write(data)
    os.replace(file.name, path)


def _entry_name(document, clip_name):
    """The archive entry holding the animation `clip_name` (entries are named `clip.ifp`,
    `clip.anm`)."""
    names = [e.name for e in document.entries()]
    for name in names:
        if name.lower() == clip_name.lower() or name.rsplit(".", 1)[0].lower() == clip_name.lower():
            return name
    shown = ", ".join(names[:8]) + (", …" if len(names) > 8 else "")
    raise animkit.InvalidError(f'no animation "{clip_name}" to replace in the archive (it holds: {shown})')


def _replace(package, archive, variant, fmt):
    document = animkit.open(archive)
    messages = []
    for clip in package.clips:
        one = animkit.Package([clip], name=package.name, up_axis=package.up_axis)
        data, caught = _encode(one, variant, ".anm" if fmt == "hip" else ".ifp")
        messages += caught
        document = document.with_entry(_entry_name(document, clip.name), data)
    return document.write(), messages


def export_actions(context, obj, chosen, path, *, variant="AUTO", replace_in=None):
    """Writes `chosen` actions of armature `obj` to `path`; returns (info, warnings, findings)."""
    path = Path(path)
    fmt = EXTENSION_FORMAT.get(path.suffix.lower())
    if fmt is None:
        raise animkit.UnsupportedError(f"no game format writes {path.suffix or 'files without extension'}")
    fps = context.scene.render.fps / context.scene.render.fps_base
    clips, problems = [], []
    for action in chosen:
        clip, lost = clip_from_action(obj, action, fps, fmt)
        clips.append(clip)
        problems += [f"{clip.name}: {p}" for p in lost]
    info = props.clip_info(chosen[0]) if chosen else {}
    package = animkit.Package(clips, name=path.stem, up_axis=str(obj.get("animkit_up_axis", info.get("up_axis", "z"))))
    chosen_variant = _variant(path, fmt, info, variant)
    if fmt == "hip" and replace_in is None:
        replace_in = path if path.exists() else info.get("source")
    if replace_in:
        data, messages = _replace(package, replace_in, chosen_variant, fmt)
        _write_bytes(path, data)
    else:
        messages = _write(package, path, chosen_variant)
    findings = animkit.open(path).check()
    lines = [f"{len(clips)} clip(s), {sum(len(c.tracks) for c in clips)} track(s) written to {path.name}"]
    return lines, problems + messages, findings
