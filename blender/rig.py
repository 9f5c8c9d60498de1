"""Armatures from animkit skeletons, and the rest pose the bone-space conversion needs.

Blender animates a pose bone by `matrix_basis`, relative to the bone's rest matrix in its
parent's space (`rest_local = parent.matrix_local⁻¹ @ bone.matrix_local`); animkit's keys are
the bone's local transform relative to its parent. So `matrix_basis = rest_local⁻¹ @ key`, which
splits per channel (rest scale 1): rotation `r0⁻¹ · r`, translation `r0⁻¹ · (t − t0)`, scale `s`.
Bones made here take the skeleton's rest frames exactly (`EditBone.matrix`), so a key equal to
the rest pose is the identity basis. A Y-up file (BFRES, EvilEngine, glTF) gets its armature
object turned +90° about X, as Blender's glTF importer does; keys are never rotated.
"""

import math

import bpy
import numpy as np
from mathutils import Matrix, Quaternion, Vector

from . import frames, props, quat

# Bones without a child to reach get this share of the skeleton's size as their length.
TIP_SHARE = 0.05


def bone_name_for(target, position):
    """A Blender name for a bone known only by a track target."""
    if target.name:
        return target.name
    if target.hash is not None:
        return f"0x{target.hash:08X}"
    if target.id is not None:
        return f"bone_{target.id}"
    return f"bone_{target.index if target.index is not None else position}"


def _globals(parents, translations, rotations):
    out = []
    for i, parent in enumerate(parents):
        x, y, z, w = (float(v) for v in rotations[i])
        local = Matrix.Translation(Vector(translations[i])) @ Quaternion((w, x, y, z)).to_matrix().to_4x4()
        out.append(out[parent] @ local if parent >= 0 else local)
    return out


def _lengths(parents, globals_):
    heads = [m.translation for m in globals_]
    extent = max((h.length for h in heads), default=0.0)
    default = max(extent * TIP_SHARE, 0.01)
    lengths = [default] * len(parents)
    for child, parent in enumerate(parents):
        if parent >= 0:
            gap = (heads[child] - heads[parent]).length
            if gap > 1e-4 and lengths[parent] == default:
                lengths[parent] = gap
    return lengths


def create_armature(context, name, bones, up_axis):
    """An armature object named `name` with `bones`: a list of dicts with `name`, `parent`
    (index, −1 for a root), `translation` (3), `rotation` (x y z w) and `identity` (the id,
    hash, index the format gives it). Returns the object (active, in object mode)."""
    data = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, data)
    context.scene.collection.objects.link(obj)
    if up_axis == "y":
        obj.rotation_euler = (math.pi / 2, 0.0, 0.0)
    obj["animkit_up_axis"] = up_axis
    for other in context.view_layer.objects:
        other.select_set(False)
    context.view_layer.objects.active = obj
    obj.select_set(True)
    parents = [b["parent"] for b in bones]
    globals_ = _globals(parents, [b["translation"] for b in bones], [b["rotation"] for b in bones])
    lengths = _lengths(parents, globals_)
    bpy.ops.object.mode_set(mode="EDIT")
    edit_bones = []
    for i, bone in enumerate(bones):
        eb = data.edit_bones.new(bone["name"])
        eb.head, eb.tail = (0.0, 0.0, 0.0), (0.0, lengths[i], 0.0)
        eb.matrix = globals_[i].normalized()
        if bone["parent"] >= 0:
            eb.parent = edit_bones[bone["parent"]]
        edit_bones.append(eb)
    names = [eb.name for eb in edit_bones]
    bpy.ops.object.mode_set(mode="OBJECT")
    for bone, name_in_blender in zip(bones, names):
        props.store_bone(data.bones[name_in_blender], {"name": bone["name"], **bone["identity"]})
    for pose_bone in obj.pose.bones:
        pose_bone.rotation_mode = "QUATERNION"
    return obj


def skeleton_bones(skeleton):
    """The bones of an animkit.Skeleton for `create_armature`."""
    bones = []
    for i, name in enumerate(skeleton.names):
        bones.append(
            {
                "name": name,
                "parent": int(skeleton.parents[i]),
                "translation": skeleton.translations[i].tolist(),
                "rotation": skeleton.rotations[i].tolist(),
                # Blender lists bones by hierarchy: the skeleton's order is kept as the index.
                "identity": {"id": skeleton.ids[i], "hash": skeleton.hashes[i], "index": i},
            }
        )
    return bones


def _xyzw(q):
    return np.array((q.x, q.y, q.z, q.w), dtype=np.float64)


class Rest:
    """The rest pose of an armature's bones in their parent's space: `t0` (3) and `r0` (x y z w),
    and the turns `frames.align` stored for rigs that point their bones another way: a key
    `(t, r)` becomes `(before · t, before · r · own)` before it is taken relative to the rest."""

    def __init__(self, obj):
        self.t0, self.r0, self.before, self.own = {}, {}, {}, {}
        for bone in obj.data.bones:
            local = bone.matrix_local
            if bone.parent is not None:
                local = bone.parent.matrix_local.inverted() @ local
            t, q, _ = local.decompose()
            self.t0[bone.name] = np.array(t, dtype=np.float64)
            self.r0[bone.name] = _xyzw(q)
        for name, (before, own) in frames.corrections(obj).items():
            identity = np.array((0.0, 0.0, 0.0, 1.0))
            self.before[name] = _xyzw(before) if before is not None else identity
            self.own[name] = _xyzw(own) if own is not None else identity

    def to_basis(self, bone, channel, values, tangents=False):
        """Key values (n, k) of `channel` as the pose bone's basis values."""
        if channel == "rotation":
            turned = quat.mul(quat.mul(self.before[bone], values), self.own[bone])
            return quat.mul(quat.conj(self.r0[bone]), turned)
        if channel == "translation":
            offset = 0.0 if tangents else self.t0[bone]
            return quat.rotate(quat.conj(self.r0[bone]), quat.rotate(self.before[bone], values) - offset)
        return values

    def from_basis(self, bone, channel, values, tangents=False):
        """The inverse of `to_basis`."""
        if channel == "rotation":
            turned = quat.mul(self.r0[bone], values)
            return quat.mul(quat.mul(quat.conj(self.before[bone]), turned), quat.conj(self.own[bone]))
        if channel == "translation":
            offset = 0.0 if tangents else self.t0[bone]
            return quat.rotate(quat.conj(self.before[bone]), quat.rotate(self.r0[bone], values) + offset)
        return values
