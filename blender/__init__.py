"""animkit for Blender: game animations in and out of actions.

File → Import → "Game animation (animkit)" (`bpy.ops.import_scene.animkit`) and File → Export
(`bpy.ops.export_scene.animkit`). Every format decision is the animkit library's (the bundled
`animkit` wheel); this package only moves keys between animkit's model and F-curves.
"""

import bpy

from . import operators


def register():
    for cls in operators.CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(operators.menu_import)
    bpy.types.TOPBAR_MT_file_export.append(operators.menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(operators.menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(operators.menu_import)
    for cls in reversed(operators.CLASSES):
        bpy.utils.unregister_class(cls)
