#!/usr/bin/env python3
"""The library's import graph between files, from its `use` lines and qualified paths.

Usage: tools/import-graph.py [--edges] [--check] [SRC_DIR]   (default crates/animkit/src)

Prints the circles (groups of files that import each other, directly or through
others), the imports that cross from one area to another (an area is a folder
under src/, or a format folder under src/formats/), and the imports the layering
forbids: a format importing another format or the registry (`registry.rs`, the
list in `builtin.rs`, or `lib.rs`, whose probe/read/open go through it), and
anything but the crate root and `convert` importing the list. With --edges, every
file-to-file edge as well; with --check, exits 1 when there is a circle or a
forbidden import. Test modules (`#[cfg(test)]` onwards) are skipped.

A path through a re-export (`pub use`) counts as an import of the file that
defines the item: `crate::formats::Document` imports `format.rs` when
`formats/mod.rs` re-exports it from there.
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

USE_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.M)
MOD_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)
COMMENT_RE = re.compile(r"//[^\n]*")


def qualified_paths(code: str, children: list) -> list:
    """Paths written in the code itself, e.g. `crate::model::Track` or `ifp::Ifp`."""
    heads = "|".join(["crate", "super", "self"] + children)
    pattern = re.compile(rf"(?<![\w:])((?:{heads})(?:::\w+)+)")
    return pattern.findall(code)


def module_of(src: Path, file: Path) -> tuple:
    rel = file.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return tuple(parts)


def expand(tree: str) -> list:
    """Flattens `a::{b, c::{d, e}}` into ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [tree]
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    items, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            items.append(inner[start:i])
            start = i + 1
    items.append(inner[start:])
    return [p for item in items if item for p in expand(prefix + item)]


def absolute(path: str, here: tuple, children: list):
    """A `use` path as a module path from the crate root, or None for other crates."""
    segs = [s.split(" as ")[0].strip() for s in path.split("::")]
    if segs[0] in children:
        segs = ["self"] + segs
    if segs[0] == "crate":
        base, rest = (), segs[1:]
    elif segs[0] in ("super", "self"):
        base, rest = here, segs
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    else:
        return None
    return base + tuple(s for s in rest if s not in ("*", "self"))


def resolve(full, modules: dict, reexports: dict, depth: int = 0):
    """The file that defines what the module path `full` names, following re-exports."""
    if full is None:
        return None
    for n in range(len(full), -1, -1):
        if full[:n] in modules:
            rest = full[n:]
            target = reexports.get((full[:n], rest[0])) if rest and depth < 10 else None
            if target is not None:
                return resolve(target + rest[1:], modules, reexports, depth + 1)
            return modules[full[:n]]
    return None


def reexports_of(src: Path, files: list) -> dict:
    """(module, name) -> the module path a `pub use` line names it by."""
    out = {}
    for f in files:
        code = COMMENT_RE.sub("", f.read_text(encoding="utf-8").split("#[cfg(test)]")[0])
        here = module_of(src, f)
        children = MOD_RE.findall(code)
        for m in USE_RE.finditer(code):
            if not m.group(0).lstrip().startswith("pub"):
                continue
            for path in expand(m.group(1)):
                target = absolute(path, here, children)
                if target:
                    name = path.split("::")[-1].split(" as ")[-1].strip()
                    out[(here, name)] = target
    return out


# The registry: its type, the list of the library's formats, and the crate root's functions
# that go through that list.
REGISTRY_FILES = ("registry.rs", "builtin.rs", "lib.rs")
# What may import the list of formats (`builtin.rs`): the root and the conversion API.
LIST_USERS = ("lib.rs", "convert")


def area(name: str) -> str:
    parts = Path(name).parts
    if parts[0] == "formats" and len(parts) > 2:
        return "formats/" + parts[1]
    return parts[0] if len(parts) > 1 else name


def forbidden(a: str, b: str) -> bool:
    """Whether area `a` may not import area `b`."""
    if a.startswith("formats/"):
        return b in REGISTRY_FILES or (b.startswith("formats/") and b != a)
    return b == "builtin.rs" and a not in LIST_USERS


def edges_of(src: Path) -> dict:
    files = sorted(src.rglob("*.rs"))
    modules = {module_of(src, f): str(f.relative_to(src)) for f in files}
    reexports = reexports_of(src, files)
    graph = defaultdict(set)
    for f in files:
        text = f.read_text(encoding="utf-8").split("#[cfg(test)]")[0]
        code = COMMENT_RE.sub("", text)
        name = str(f.relative_to(src))
        here = module_of(src, f)
        children = MOD_RE.findall(code)
        paths = [p for m in USE_RE.finditer(code) for p in expand(m.group(1))]
        for path in paths + qualified_paths(USE_RE.sub("", code), children):
            target = resolve(absolute(path, here, children), modules, reexports)
            if target and target != name:
                graph[name].add(target)
        graph.setdefault(name, set())
    return graph


def circles(graph: dict) -> list:
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = Path(args[0] if args else "crates/animkit/src")
    graph = edges_of(src)
    n_edges = sum(len(t) for t in graph.values())
    print(f"{len(graph)} files, {n_edges} file-to-file imports")
    comps = circles(graph)
    print(f"\ncircles: {len(comps)}")
    for comp in comps:
        print(f"  {len(comp)} files: " + ", ".join(comp))
    cross = defaultdict(int)
    for s, targets in graph.items():
        for t in targets:
            if area(s) != area(t):
                cross[(area(s), area(t))] += 1
    print("\nimports across areas (from -> to: count):")
    for (a, b), n in sorted(cross.items()):
        print(f"  {a} -> {b}: {n}")
    bad = sorted((a, b) for (a, b) in cross if forbidden(a, b))
    print(f"\nforbidden imports (a format -> another format or the registry; -> builtin.rs): {len(bad)}")
    for a, b in bad:
        files = sorted(f"{s} -> {t}" for s, ts in graph.items() for t in ts if (area(s), area(t)) == (a, b))
        print(f"  {a} -> {b}: " + ", ".join(files))
    if "--edges" in sys.argv:
        print("\nedges:")
        for s in sorted(graph):
            for t in sorted(graph[s]):
                print(f"  {s} -> {t}")
    if "--check" in sys.argv and (comps or bad):
        print("\nimport-graph: FAILED (circles or forbidden imports above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
