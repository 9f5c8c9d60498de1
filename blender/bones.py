"""Which bone of an armature a track animates.

A track names its bone in the way its format does: by name (IFP, BFRES, i_caf), GTA bone tag
(IFP), CryEngine CRC-32 of the case-preserved bone name (compiled CAF/DBA; the lowercase name's
CRC is tried next, as the engine's lookup does), EvilEngine bone index (SKB, the rig's order).
A bone matches by, in turn: its name (also the name the file gave it, `animkit_name`), ignoring
case and surrounding spaces; its stored tag/id (`animkit_id`, or DragonFF's `bone_id`); its
stored hash or the CRC-32 of its name; its stored index, else its position in the rig.
"""

import zlib


def _norm(name):
    return name.strip().casefold()


def _stored_int(bone, *keys):
    for key in keys:
        if key in bone:
            try:
                return int(bone[key])
            except (TypeError, ValueError):
                continue
    return None


class BoneMatcher:
    """Finds the bone of a track target among `bones` (an armature's `data.bones`, rig order)."""

    def __init__(self, bones):
        self.by_name = {}
        self.by_id = {}
        self.by_hash = {}
        self.by_index = {}
        for position, bone in enumerate(bones):
            for name in (bone.name, bone.get("animkit_name")):
                if isinstance(name, str):
                    self.by_name.setdefault(_norm(name), bone.name)
            tag = _stored_int(bone, "animkit_id", "bone_id")
            if tag is not None:
                self.by_id.setdefault(tag, bone.name)
            stored_hash = _stored_int(bone, "animkit_hash")
            hashes = [stored_hash] if stored_hash is not None else []
            hashes += [zlib.crc32(bone.name.encode()), zlib.crc32(bone.name.lower().encode())]
            for value in hashes:
                self.by_hash.setdefault(value, bone.name)
            index = _stored_int(bone, "animkit_index")
            self.by_index.setdefault(position if index is None else index, bone.name)

    def find(self, target):
        """The name of the bone `target` (an animkit.Target) animates, or None."""
        if target.name is not None and _norm(target.name) in self.by_name:
            return self.by_name[_norm(target.name)]
        if target.id is not None and target.id >= 0 and target.id in self.by_id:
            return self.by_id[target.id]
        if target.hash is not None and target.hash in self.by_hash:
            return self.by_hash[target.hash]
        if target.index is not None and target.index in self.by_index:
            return self.by_index[target.index]
        return None
