"""Rigs whose bones point another way than the file's skeleton (e.g. made by Blender's glTF
importer, which turns bones along their children and converts Y-up to Z-up).

With the file's skeleton (global rest `G_b`) and the rig's rest matrices `B_b` (armature space)
at the same joint positions, `B_b = A · G_b · C_b`: `A` turns the skeleton's axes into the
armature's (identity, or ±90° about X), `C_b` is the bone's own turn. Then the pose bone's
parent-relative matrix is `C_p⁻¹ · key · C_b` (`A` in place of `C_p⁻¹` for a root), and
`matrix_basis` is that relative to the rig's rest. `align` finds `A` (the candidate that puts
the joints where the rig has them) and stores `C_b` on each bone (`animkit_frame`, w x y z) and
`A` on the object (`animkit_axes`), so export undoes exactly what import did.
"""

import math

import animkit
from mathutils import Matrix, Quaternion

# Joints must sit within this share of the skeleton's size (or 0.1 mm) for the rig to be aligned.
POSITION_SHARE = 1e-3
CANDIDATES = [Quaternion(), Quaternion((1.0, 0.0, 0.0), math.pi / 2), Quaternion((1.0, 0.0, 0.0), -math.pi / 2)]


def _skeleton_globals(skeleton):
    out = []
    for i, parent in enumerate(skeleton.parents):
        x, y, z, w = (float(v) for v in skeleton.rotations[i])
        local = Matrix.Translation(skeleton.translations[i].tolist()) @ Quaternion((w, x, y, z)).to_matrix().to_4x4()
        out.append(out[parent] @ local if parent >= 0 else local)
    return out


def _matched(obj, skeleton, matcher):
    pairs = []
    for i, name in enumerate(skeleton.names):
        target = animkit.Target(name, id=skeleton.ids[i], hash=skeleton.hashes[i])
        bone = matcher.find(target)
        if bone is not None:
            pairs.append((i, obj.data.bones[bone]))
    return pairs


def align(obj, skeleton, matcher):
    """Stores the frames of `obj`'s bones against `skeleton`; returns how many bones were
    aligned (0 when the joints do not sit where the skeleton puts them, or nothing turns)."""
    globals_ = _skeleton_globals(skeleton)
    pairs = _matched(obj, skeleton, matcher)
    if not pairs:
        return 0
    size = max((g.translation.length for g in globals_), default=0.0)
    tolerance = max(POSITION_SHARE * size, 1e-4)

    def worst(axes):
        turn = axes.to_matrix().to_4x4()
        return max(((turn @ globals_[i]).translation - bone.matrix_local.translation).length for i, bone in pairs)

    axes = min(CANDIDATES, key=worst)
    if worst(axes) > tolerance:
        return 0
    turn = axes.to_matrix().to_4x4()
    frames = {}
    for i, bone in pairs:
        frames[bone.name] = ((turn @ globals_[i]).inverted() @ bone.matrix_local).to_quaternion().normalized()
    if axes == CANDIDATES[0] and all(f.angle < 1e-5 for f in frames.values()):
        return 0
    obj["animkit_axes"] = list(axes)
    for name, frame in frames.items():
        obj.data.bones[name]["animkit_frame"] = list(frame)
    return len(frames)


def corrections(obj):
    """{bone: (C_p⁻¹ as w x y z or None, C_b as w x y z or None)} from what `align` stored."""
    axes = obj.get("animkit_axes")
    out = {}
    for bone in obj.data.bones:
        own = bone.get("animkit_frame")
        if bone.parent is not None:
            parent = bone.parent.get("animkit_frame")
            before = Quaternion(parent).inverted() if parent is not None else None
        else:
            before = Quaternion(axes) if axes is not None else None
        out[bone.name] = (before, Quaternion(own) if own is not None else None)
    return out
