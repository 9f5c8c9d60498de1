"""F-curves of an action for one armature, with Blender 4.4+ slotted actions or the older API."""

import bpy

# Keyframe.interpolation and handle type values for `foreach_set`.
INTERPOLATION_CODE = {"CONSTANT": 0, "LINEAR": 1, "BEZIER": 2}
HANDLE_FREE = 0


def slotted():
    """True from Blender 4.4, where an action's F-curves live in a slot's channelbag."""
    return hasattr(bpy.types, "ActionChannelbag")


class Channels:
    """Creates the F-curves of `action` for the armature object `obj`, grouped by bone."""

    def __init__(self, action, obj):
        self.groups = {}
        if slotted():
            slot = action.slots.new(id_type="OBJECT", name=obj.name)
            strip = action.layers.new("Layer").strips.new(type="KEYFRAME")
            self.bag = strip.channelbag(slot, ensure=True)
            self.fcurves = self.bag.fcurves
        else:
            self.bag = action
            self.fcurves = action.fcurves

    def new(self, data_path, index, group):
        fcurve = self.fcurves.new(data_path, index=index)
        if group not in self.groups:
            self.groups[group] = self.bag.groups.new(group)
        fcurve.group = self.groups[group]
        return fcurve


def assign(obj, action):
    """Makes `action` the armature's animation (its first slot, with slotted actions)."""
    if obj.animation_data is None:
        obj.animation_data_create()
    obj.animation_data.action = action
    if slotted() and len(action.slots) and obj.animation_data.action_slot is None:
        obj.animation_data.action_slot = action.slots[0]


def fcurves(action, obj=None):
    """Every F-curve of `action` that animates `obj` (its assigned or first slot)."""
    if not slotted():
        return list(action.fcurves)
    slot = None
    if obj is not None and obj.animation_data is not None and obj.animation_data.action == action:
        slot = obj.animation_data.action_slot
    if slot is None and len(action.slots):
        slot = action.slots[0]
    if slot is None:
        return []
    out = []
    for layer in action.layers:
        for strip in layer.strips:
            bag = strip.channelbag(slot)
            if bag is not None:
                out.extend(bag.fcurves)
    return out
