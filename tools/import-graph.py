#!/usr/bin/env python3
"""The library's import graph between files, from its `use` lines and qualified paths.

Usage: tools/import-graph.py [--edges] [SRC_DIR]   (default crates/animkit/src)

Prints the circles (groups of files that import each other, directly or through
others), the imports that cross from one area to another (an area is a folder
under src/, or a format folder under src/formats/), and whether any format
imports another format or the registry (`formats/mod.rs`). With --edges, every
file-to-file edge as well. Test modules (`#[cfg(test)]` onwards) are skipped.
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


def resolve(path: str, here: tuple, modules: dict):
    """The file a `use` path points into, or None for other crates."""
    segs = [s.split(" as ")[0] for s in path.split("::")]
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
    full = base + tuple(s for s in rest if s not in ("*", "self"))
    for n in range(len(full), -1, -1):
        if full[:n] in modules:
            return modules[full[:n]]
    return None


def area(name: str) -> str:
    parts = Path(name).parts
    if parts[0] == "formats" and len(parts) > 2:
        return "formats/" + parts[1]
    if parts[0] == "formats":
        return "formats (registry)"
    return parts[0] if len(parts) > 1 else name


def edges_of(src: Path) -> dict:
    files = sorted(src.rglob("*.rs"))
    modules = {module_of(src, f): str(f.relative_to(src)) for f in files}
    graph = defaultdict(set)
    for f in files:
        text = f.read_text(encoding="utf-8").split("#[cfg(test)]")[0]
        code = COMMENT_RE.sub("", text)
        name = str(f.relative_to(src))
        here = module_of(src, f)
        children = MOD_RE.findall(code)
        paths = [p for m in USE_RE.finditer(code) for p in expand(m.group(1))]
        for path in paths + qualified_paths(USE_RE.sub("", code), children):
            if path.split("::")[0] in children:
                path = "self::" + path
            target = resolve(path, here, modules)
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
    bad = sorted(
        (a, b)
        for (a, b) in cross
        if a.startswith("formats/") and b.startswith("formats")
    )
    print(f"\nformat -> other format or registry: {len(bad)}")
    for a, b in bad:
        print(f"  {a} -> {b}")
    if "--edges" in sys.argv:
        print("\nedges:")
        for s in sorted(graph):
            for t in sorted(graph[s]):
                print(f"  {s} -> {t}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
