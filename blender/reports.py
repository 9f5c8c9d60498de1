"""animkit's errors, warnings and `check` findings as Blender reports (never a traceback)."""

import animkit

# Blender shows this many lines of one kind; the rest are counted in one more line.
MAX_LINES = 12
SEVERITY = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}


def report_lines(operator, level, lines):
    for line in lines[:MAX_LINES]:
        operator.report({level}, line)
    if len(lines) > MAX_LINES:
        operator.report({level}, f"… and {len(lines) - MAX_LINES} more")


def report_findings(operator, findings):
    """`check` findings of the written file, one line per kind (its first message and a count:
    a package of hundreds of animations repeats the same finding)."""
    for severity in ("error", "warning", "info"):
        kinds = {}
        for finding in findings:
            if finding.severity == severity:
                kinds.setdefault(finding.code, []).append(finding.message)
        lines = [
            f"check: {code}: {messages[0]}" + (f" (and {len(messages) - 1} more like it)" if len(messages) > 1 else "")
            for code, messages in kinds.items()
        ]
        report_lines(operator, SEVERITY[severity], lines)


def run(operator, work):
    """Calls `work()`; an animkit or file-system error becomes an ERROR report. Returns the
    operator result set."""
    try:
        work()
    except animkit.Error as error:
        operator.report({"ERROR"}, f"animkit: {error}")
        return {"CANCELLED"}
    except OSError as error:
        operator.report({"ERROR"}, f"animkit: {error}")
        return {"CANCELLED"}
    return {"FINISHED"}
