"""File → Import / Export → "Game animation (animkit)"."""

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import exporter, importer, reports

READ_FILTER = "*.ifp;*.anm;*.hip;*.hop;*.caf;*.i_caf;*.dba;*.chr;*.bfres;*.sbfres;*.szs;*.sarc;*.pack;*.glb;*.gltf"
VARIANTS = [
    ("AUTO", "As imported", "The variant the action was imported from (else ANP3, SKB V1, CAF)"),
    ("anp3", "IFP ANP3", "San Andreas"),
    ("anpk", "IFP ANPK", "GTA III and Vice City"),
    ("skb-be", "SKB V1 big-endian", "Battle for Bikini Bottom (GameCube)"),
    ("skb-le", "SKB V1 little-endian", ""),
    ("skb-v2-be", "SKB V2 big-endian", ""),
    ("skb-v2-le", "SKB V2 little-endian", ""),
    ("caf", "CAF (CrCh)", "CryEngine 3.4+ / Lumberyard compiled clip"),
    ("crytek", "CAF (CryTek 0x745)", "CryEngine 3 compiled clip"),
    ("i_caf", "i_caf", "CryEngine uncompressed intermediate clip"),
    ("dba", "DBA", "CryEngine animation database"),
    ("bfres", "BFRES FSKA", "Wii U skeletal animation"),
]


class ImportAnimkit(bpy.types.Operator, ImportHelper):
    """Import game animations (GTA IFP, EvilEngine ANM/HIP, CryEngine, BFRES) as actions"""

    bl_idname = "import_scene.animkit"
    bl_label = "Import game animation"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: StringProperty(default=READ_FILTER, options={"HIDDEN"})
    skeleton: StringProperty(
        name="Skeleton file",
        description="A file with the rig (CHR, DFF, BFRES, HIP, GLB) when the file has none and no armature is active",
        subtype="FILE_PATH",
    )
    clips: StringProperty(name="Clips", description="Comma-separated clip names to import (empty: all)")
    onto_active: BoolProperty(
        name="Onto active armature",
        description="Match bones of the active armature instead of making one",
        default=True,
    )
    set_fps: BoolProperty(
        name="Scene at the clip's rate", description="Set the scene's fps to the clip's", default=True
    )

    def execute(self, context):
        def work():
            clips = [c.strip() for c in self.clips.split(",") if c.strip()] or None
            _, info, warnings = importer.import_file(
                context,
                self.filepath,
                skeleton=self.skeleton or None,
                clips=clips,
                onto_active=self.onto_active,
                set_fps=self.set_fps,
            )
            reports.report_lines(self, "INFO", info)
            reports.report_lines(self, "WARNING", warnings)

        return reports.run(self, work)


class ExportAnimkit(bpy.types.Operator, ExportHelper):
    """Export actions of the active armature to a game animation format"""

    bl_idname = "export_scene.animkit"
    bl_label = "Export game animation"

    filename_ext = ".ifp"
    check_extension = False
    filter_glob: StringProperty(default="*.ifp;*.anm;*.hip;*.hop;*.caf;*.i_caf;*.dba;*.bfres", options={"HIDDEN"})
    actions: StringProperty(
        name="Actions", description="Comma-separated action names (empty: the armature's current action)"
    )
    variant: EnumProperty(name="Variant", items=VARIANTS, default="AUTO")
    replace_in: StringProperty(
        name="Replace in",
        description="An existing IFP or HIP/HOP whose animations of the same names are replaced",
        subtype="FILE_PATH",
    )

    def _chosen(self, obj):
        names = [n.strip() for n in self.actions.split(",") if n.strip()]
        if not names:
            action = obj.animation_data.action if obj.animation_data else None
            return [action] if action else []
        missing = [n for n in names if n not in bpy.data.actions]
        if missing:
            self.report({"ERROR"}, f"no action {', '.join(missing)}")
            return None
        return [bpy.data.actions[n] for n in names]

    def execute(self, context):
        obj = context.view_layer.objects.active
        if obj is None or obj.type != "ARMATURE":
            self.report({"ERROR"}, "select the armature whose actions to export")
            return {"CANCELLED"}
        chosen = self._chosen(obj)
        if not chosen:
            if chosen == []:
                self.report({"ERROR"}, f"{obj.name} has no action: name the actions to export")
            return {"CANCELLED"}

        def work():
            info, warnings, findings = exporter.export_actions(
                context, obj, chosen, self.filepath, variant=self.variant, replace_in=self.replace_in or None
            )
            reports.report_lines(self, "INFO", info)
            reports.report_lines(self, "WARNING", warnings)
            reports.report_findings(self, findings)

        return reports.run(self, work)


def menu_import(self, context):
    self.layout.operator(ImportAnimkit.bl_idname, text="Game animation (animkit)")


def menu_export(self, context):
    self.layout.operator(ExportAnimkit.bl_idname, text="Game animation (animkit)")


CLASSES = (ImportAnimkit, ExportAnimkit)
