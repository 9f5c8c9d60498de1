"""The format's own data kept as custom properties, so that export can restore it.

On an action (one per clip), `animkit` is a group:
  clip (the clip's name in the file), format, version, source (file path), duration (seconds),
  frame_rate, looping (0/1, absent when the file does not say), additive (0/1), up_axis
  ("y"/"z") and tracks: a JSON list of the clip's tracks
  as imported, `{"bone", "target", "channel", "interpolation"}`, where `target` holds the
  track's name/id/hash/index. Export writes a bone's track with that target, so GTA bone tags,
  CryEngine CRC-32s and EvilEngine indices come back as they were.
On a bone (armature data), the identity its format gave it: animkit_name (when the format's
name differs from Blender's), animkit_id (GTA bone tag, BFRES/EvilEngine index as the file
numbers it), animkit_hash (CryEngine CRC-32, as a string), animkit_index (the bone's place in
the file's skeleton: EvilEngine's bone index), and for rigs that point their bones another way
animkit_frame (see `frames`).
"""

import json

ACTION_GROUP = "animkit"
BONE_KEYS = ("name", "id", "hash", "index")


def target_dict(target):
    """The identity of an animkit.Target as a JSON-able dict (only the parts it has)."""
    out = {}
    for key in BONE_KEYS:
        value = getattr(target, key)
        if value is not None:
            out[key] = value
    return out


def store_clip(action, clip, document, source, tracks, up_axis):
    """Keeps what the clip's file says about it on `action`."""
    group = {
        "clip": clip.name,
        "format": document.format,
        "version": document.version,
        "source": str(source),
        "duration": float(clip.duration),
        "additive": int(bool(clip.additive)),
        "up_axis": up_axis,
        "tracks": json.dumps(tracks),
    }
    if clip.frame_rate:
        group["frame_rate"] = float(clip.frame_rate)
    if clip.looping is not None:
        group["looping"] = int(bool(clip.looping))
    action[ACTION_GROUP] = group


def clip_info(action):
    """The stored clip data of `action` as a plain dict (empty for actions made in Blender)."""
    group = action.get(ACTION_GROUP)
    if group is None:
        return {}
    info = group.to_dict() if hasattr(group, "to_dict") else dict(group)
    try:
        info["tracks"] = json.loads(info.get("tracks", "[]"))
    except ValueError:
        info["tracks"] = []
    return info


def store_bone(bone, identity):
    """Keeps a bone's identity in its format (a dict of name/id/hash/index, values may be None)
    on the armature's `bone`."""
    for key, value in identity.items():
        if value is None or (key == "name" and value == bone.name):
            continue
        # IDProperties hold 32-bit signed integers: a CRC-32 is kept as a string.
        bone[f"animkit_{key}"] = str(value) if key == "hash" else value


def bone_identity(bone):
    """What is stored on `bone` by `store_bone`, as a target dict (name defaults to the bone's)."""
    out = {"name": bone.get("animkit_name", bone.name)}
    for key in ("id", "index"):
        if f"animkit_{key}" in bone:
            out[key] = int(bone[f"animkit_{key}"])
    if "animkit_hash" in bone:
        out["hash"] = int(bone["animkit_hash"])
    return out
