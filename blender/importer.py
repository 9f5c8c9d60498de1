"""A game animation file into Blender: one action per clip on an armature.

The armature is the active one (bones matched as `bones.BoneMatcher` says), else one made from
the skeleton the file carries (BFRES FSKL, EvilEngine HIP MODL, glTF rig) or is given (CHR,
DFF, BFRES, glTF, HIP), else a flat one with a bone per track target at the identity rest pose.
Keys are placed at `time × fps` frames (the clip's rate, which becomes the scene's). Engine
interpolation maps onto F-curves: step → CONSTANT; linear, slerp, nlerp → LINEAR (Blender
interpolates quaternion components and normalises: nlerp exactly, slerp within its small
mid-segment difference); cubic Hermite → BEZIER with free handles at a third of each segment,
which is the same cubic. Stored quaternion signs are kept (engines interpolate them as stored).
"""

import math
from pathlib import Path

import animkit
import bpy
import numpy as np

from . import actions, frames, props, quat, rig
from .bones import BoneMatcher

# The frame rate of clips whose file does not say it (GTA and EvilEngine play at 30).
DEFAULT_FPS = 30.0
CHANNEL_PATHS = {"rotation": "rotation_quaternion", "translation": "location", "scale": "scale"}


class Summary:
    """What an import did and skipped, as counted lines for Blender's report area."""

    def __init__(self):
        self.info, self.warnings = [], []
        self.skipped = {}

    def skip(self, reason, count=1):
        self.skipped[reason] = self.skipped.get(reason, 0) + count

    def lines(self):
        warnings = self.warnings + [f"{n} track(s) not imported: {why}" for why, n in self.skipped.items()]
        return self.info, warnings


def _packages(document, clip_names):
    packages = document.packages() if document.format == "hip" else [document.to_model()]
    if clip_names:
        # Game clip names compare without case (GTA looks animations up that way).
        wanted = {n.lower(): n for n in clip_names}
        for package in packages:
            package.clips = [c for c in package.clips if c.name.lower() in wanted]
        packages = [p for p in packages if p.clips]
        missing = set(wanted) - {c.name.lower() for p in packages for c in p.clips}
        if missing:
            raise animkit.InvalidError(f"no clip {', '.join(sorted(wanted[m] for m in missing))} in the file")
    return packages


def _flat_bones(package, skeleton=None, start=0):
    """One bone per distinct bone target of the package's tracks (those `skeleton` does not
    have), identity rest, no parent."""
    seen, bones = {}, []
    for clip in package.clips:
        for track in clip.tracks:
            if track.target.kind != "bone" or (skeleton is not None and skeleton.find(track.target) is not None):
                continue
            identity = props.target_dict(track.target)
            key = tuple(sorted(identity.items()))
            if key in seen:
                continue
            seen[key] = len(bones)
            name = rig.bone_name_for(track.target, start + len(bones))
            bones.append(
                {"name": name, "parent": -1, "translation": (0, 0, 0), "rotation": (0, 0, 0, 1), "identity": identity}
            )
    return bones


def _armature(context, package, skeleton, name, onto_active):
    active = context.view_layer.objects.active
    if onto_active and active is not None and active.type == "ARMATURE":
        return active, False
    skeleton = package.skeleton or skeleton
    bones = rig.skeleton_bones(skeleton) if skeleton is not None else []
    # Targets the skeleton lacks (a BFRES clip animating bones of another model) become roots.
    bones += _flat_bones(package, skeleton, len(bones))
    if not bones:
        raise animkit.InvalidError("the file animates no bone (nothing to put on an armature)")
    return rig.create_armature(context, name, bones, package.up_axis), True


def _handles(frames, values, tangents_in, tangents_out, fps):
    """Bezier handles (left, right) of a cubic Hermite curve: a third of each segment."""
    n = len(frames)
    span = np.diff(frames)
    before = np.concatenate(([span[0] if n > 1 else 1.0], span)) / 3.0
    after = np.concatenate((span, [span[-1] if n > 1 else 1.0])) / 3.0
    left = np.stack((frames - before, values - tangents_in * before / fps), axis=-1)
    right = np.stack((frames + after, values + tangents_out * after / fps), axis=-1)
    return left, right


def _write_channel(channels, bone, track, rest, fps):
    channel = track.channel
    frames = np.asarray(track.times, dtype=np.float64) * fps
    values = np.asarray(track.values, dtype=np.float64)
    cubic = track.interpolation == "cubic_spline"
    if cubic:
        tin, values, tout = values[0::3], values[1::3], values[2::3]
        tin = rest.to_basis(bone, channel, tin, tangents=True)
        tout = rest.to_basis(bone, channel, tout, tangents=True)
    basis = rest.to_basis(bone, channel, values)
    if channel == "rotation":
        basis = quat.to_blender(basis)
        if cubic:
            tin, tout = quat.to_blender(tin), quat.to_blender(tout)
    code = actions.INTERPOLATION_CODE["CONSTANT" if track.interpolation == "step" else "BEZIER" if cubic else "LINEAR"]
    path = f'pose.bones["{bpy.utils.escape_identifier(bone)}"].{CHANNEL_PATHS[channel]}'
    for component in range(basis.shape[1]):
        fcurve = channels.new(path, component, bone)
        points = fcurve.keyframe_points
        points.add(len(frames))
        points.foreach_set("co", np.stack((frames, basis[:, component]), axis=-1).ravel())
        points.foreach_set("interpolation", [code] * len(frames))
        if cubic:
            left, right = _handles(frames, basis[:, component], tin[:, component], tout[:, component], fps)
            points.foreach_set("handle_left_type", [actions.HANDLE_FREE] * len(frames))
            points.foreach_set("handle_right_type", [actions.HANDLE_FREE] * len(frames))
            points.foreach_set("handle_left", left.ravel())
            points.foreach_set("handle_right", right.ravel())
        fcurve.update()


def _import_clip(obj, clip, context_data, summary):
    document, path, fps, up_axis = context_data
    matcher = BoneMatcher(obj.data.bones)
    rest = rig.Rest(obj)
    action = bpy.data.actions.new(clip.name)
    action.use_fake_user = True
    channels = actions.Channels(action, obj)
    done, tracks = set(), []
    for track in clip.tracks:
        if track.target.kind != "bone" or track.channel not in CHANNEL_PATHS:
            summary.skip(f"{track.channel} tracks of materials or nodes are not bone animation")
            continue
        bone = matcher.find(track.target)
        if bone is None:
            summary.skip(f"no bone of {obj.name} matches (by name, tag, CRC-32 or index)")
            continue
        if (bone, track.channel) in done:
            summary.skip("a second track for the same bone and channel")
            continue
        done.add((bone, track.channel))
        _write_channel(channels, bone, track, rest, fps)
        tracks.append(
            {
                "bone": bone,
                "target": props.target_dict(track.target),
                "channel": track.channel,
                "interpolation": track.interpolation,
            }
        )
    if not tracks and any(t.target.kind == "bone" for t in clip.tracks):
        bpy.data.actions.remove(action)
        raise animkit.InvalidError(
            f'no track of clip "{clip.name}" matches a bone of {obj.name} (by name, tag, CRC-32 or index): '
            "pick the clip's rig, or make no armature active to create one"
        )
    props.store_clip(action, clip, document, path, tracks, up_axis)
    return action


def _set_scene_rate(scene, fps, duration):
    whole = max(1, round(fps))
    scene.render.fps = whole
    scene.render.fps_base = whole / fps
    scene.frame_start = 0
    scene.frame_end = max(1, math.ceil(duration * fps - 1e-6))


def import_file(context, path, *, skeleton=None, clips=None, onto_active=True, set_fps=True):
    """Imports `path`; returns (actions, info lines, warning lines). Raises animkit.Error."""
    path = Path(path)
    document = animkit.open(path)
    rig_skeleton = animkit.open(skeleton).to_model().skeleton if skeleton else None
    if skeleton and rig_skeleton is None:
        raise animkit.InvalidError(f"{skeleton} holds no skeleton")
    summary = Summary()
    made = []
    for package in _packages(document, clips):
        obj, created = _armature(context, package, rig_skeleton, package.name or path.stem, onto_active)
        if created:
            summary.info.append(f"created armature {obj.name} ({len(obj.data.bones)} bones)")
        elif package.skeleton or rig_skeleton:
            turned = frames.align(obj, package.skeleton or rig_skeleton, BoneMatcher(obj.data.bones))
            if turned:
                summary.info.append(
                    f"{turned} bones of {obj.name} point another way than the file's: keys turned to match"
                )
        for clip in package.clips:
            fps = float(clip.frame_rate or DEFAULT_FPS)
            if not set_fps:
                fps = context.scene.render.fps / context.scene.render.fps_base
            action = _import_clip(obj, clip, (document, path, fps, package.up_axis), summary)
            made.append(action)
        if package.clips:
            actions.assign(obj, made[-len(package.clips)])
            first = package.clips[0]
            if set_fps:
                _set_scene_rate(context.scene, float(first.frame_rate or DEFAULT_FPS), first.duration)
    summary.info.append(f"{len(made)} clip(s) imported from {path.name} ({document.format} {document.version})")
    info, warnings = summary.lines()
    return made, info, warnings
