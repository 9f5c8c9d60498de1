"""Read, write, inspect, repair and convert game animation formats.

GTA IFP, EvilEngine SKB/HIP, CryEngine CAF/DBA/CHR, Nintendo BFRES, plus glTF, model JSON and CSV.
Key data is numpy: times are float32 seconds, rotations (n, 4) float32 quaternions `x y z w`
(glTF's convention), translations and scales (n, 3) float32.
"""

import os
from typing import Any, Literal, TypedDict, final

import numpy as np
import numpy.typing as npt

__version__: str

Channel = Literal["rotation", "translation", "scale", "scalar", "texture_index", "visibility"]
Interpolation = Literal["step", "linear", "slerp", "nlerp", "cubic_spline"]
Option = str | bool | int | float | None

class Error(Exception):
    """An animkit error. `str(e)` is the full sentence: kind, byte offset, structure path, message."""

    kind: Literal["truncated", "invalid", "unsupported", "unrepresentable", "limit", "io"]
    offset: int | None
    """Byte offset in the input where the problem was found."""
    path: list[str]
    """The structures it happened in, outermost first (`["ANP3", "animation 3"]`)."""
    message: str

class TruncatedError(Error):
    """The input ends before a structure that it announces."""

class InvalidError(Error):
    """A value in the input (or a model built in Python) breaks the format's rules."""

class UnsupportedError(Error):
    """Well-formed input that uses something animkit does not implement, or an unknown format."""

class UnrepresentableError(Error):
    """The data cannot be represented in the requested output."""

class LimitError(Error):
    """A resource limit (keys, bytes, nesting) was reached."""

class IoError(Error):
    """The file system failed."""

class ConversionWarning(UserWarning):
    """What a conversion had to approximate or drop (one warning per kind of loss, with counts)."""

class Capabilities(TypedDict):
    read: bool
    to_model: bool
    from_model: bool
    dump: bool
    archive: bool
    skeleton: bool

class FormatInfo(TypedDict):
    name: str
    description: str
    extensions: list[str]
    variants: list[str]
    capabilities: Capabilities

def open(
    source: str | os.PathLike[str] | bytes,
    format: str | None = None,
    *,
    lenient: bool = False,
    **options: Option,
) -> Document:
    """Opens a file (a path) or its bytes, with the named format or the one the probe finds.

    `lenient=True` reads past damage where the format allows; other keywords are settings the
    format reads (`skb_version=1`, `fps=60`…; another is an `UnsupportedError` listing those it
    reads). Raises an `Error` subclass with the byte offset on bad input.
    """

def pack(dump: Any) -> Document:
    """The inverse of `Document.dump()`."""

def sample(clip: Clip, t: float | npt.ArrayLike) -> list[Sample]:
    """The pose of `clip` at `t` seconds (one number, or a 1-D array of times), as the game computes it."""

def write(package: Package, path: str | os.PathLike[str], format: str | None = None, **options: Option) -> None:
    """Writes `package` as `format` (or the format of `path`'s extension), atomically.

    Keywords are format settings (`overflow="error"`, `rotation="euler"`…). What the conversion
    approximated comes as `ConversionWarning`s.
    """

def convert(
    input: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    to: str | None = None,
    clips: list[str] | None = None,
    skeleton: str | os.PathLike[str] | None = None,
    **options: Option,
) -> None:
    """Converts a file to `output` (format `to`, or the output's extension), as `animkit convert`."""

def formats() -> list[FormatInfo]:
    """Every format animkit knows, as `animkit formats --json` lists them."""

@final
class Document:
    """A parsed file: the exact raw layer of one format."""

    @property
    def format(self) -> str: ...
    @property
    def version(self) -> str: ...
    def notes(self) -> list[str]: ...
    def summary(self) -> dict[str, Any]:
        """What `animkit info --json` reports: clips, durations, tracks and key counts."""
    def dump(self) -> dict[str, Any]:
        """The lossless JSON of the raw structure, as Python objects."""
    def write(self) -> bytes:
        """The file's bytes: identical to the input when nothing was changed."""
    def to_model(self) -> Package: ...
    def packages(self) -> list[Package]:
        """The model split into one package per skeleton (one per character, for HIP archives)."""
    def entries(self) -> list[Entry]:
        """The assets inside an archive; empty for other files."""
    def with_entry(self, name: str, data: bytes) -> Document:
        """A copy of this archive whose entry `name` holds `data`."""
    def check(self) -> list[Finding]:
        """Every problem found, with offsets and severities."""
    def repair(self) -> tuple[Document, list[str]]:
        """A canonical rewrite fixing what `check()` reports as fixable, and what it changed."""

@final
class Entry:
    name: str
    kind: str
    data: bytes

@final
class Finding:
    severity: Literal["info", "warning", "error"]
    code: str
    offset: int | None
    path: str
    message: str
    fixable: bool

@final
class Target:
    """A bone (by name, id, hash or index) or a material property. Immutable and hashable."""

    def __init__(
        self,
        name: str | None = None,
        *,
        id: int | None = None,
        hash: int | None = None,
        index: int | None = None,
        material: str | None = None,
        property: str | None = None,
    ) -> None: ...
    @property
    def kind(self) -> Literal["bone", "material"]: ...
    @property
    def name(self) -> str | None: ...
    @property
    def id(self) -> int | None: ...
    @property
    def tag(self) -> int | None:
        """The same as `id` (GTA's bone tag)."""
    @property
    def hash(self) -> int | None: ...
    @property
    def index(self) -> int | None: ...
    @property
    def material(self) -> str | None: ...
    @property
    def property(self) -> str | None: ...
    @property
    def label(self) -> str: ...

class Track:
    """One animated channel of one target, its keys as numpy arrays (copied in, editable in place)."""

    target: Target
    interpolation: Interpolation
    times: npt.NDArray[np.float32]
    """Key times in seconds, shape (n,)."""
    values: npt.NDArray[Any]
    """float32 (n, 4) rotations, (n, 3) translations/scales, (n,) scalars; uint32 (n,) texture
    indices; bool (n,) visibility. Cubic tracks hold three rows per key (in-tangent, value, out-tangent)."""
    def __init__(
        self,
        target: Target | str,
        channel: Channel,
        times: npt.ArrayLike,
        values: npt.ArrayLike,
        interpolation: Interpolation | None = None,
        *,
        textures: list[str] | None = None,
    ) -> None: ...
    @property
    def channel(self) -> Channel: ...
    @property
    def textures(self) -> list[str] | None: ...
    def __len__(self) -> int: ...

@final
class KeyArrays:
    """One channel's keys of many tracks, end to end in a few numpy arrays.

    `Clip.key_arrays()` and `Package.key_arrays()` give one per channel: every key copied once,
    without a numpy array per track (the fast way to read a whole file's keys). A snapshot: editing
    it does not change the tracks, nor editing the tracks it. Track row `i` is
    `package.clips[clips[i]].tracks[tracks[i]]`; its times are `times[key_offsets[i]:key_offsets[i + 1]]`
    and its values `values[value_offsets[i]:value_offsets[i + 1]]` (`track(i)` gives both).
    """

    channel: Channel
    clips: npt.NDArray[np.int64]
    """Per track, the index of its clip (0 throughout for `Clip.key_arrays()`)."""
    tracks: npt.NDArray[np.int64]
    """Per track, its index in its clip's `tracks`."""
    times: npt.NDArray[np.float32]
    """Every track's key times in seconds, track after track."""
    key_offsets: npt.NDArray[np.int64]
    """Where each track's keys start in `times`, then where the last ends (len(self) + 1)."""
    values: npt.NDArray[Any]
    """Every track's values, track after track, in the channel's dtype and width (as `Track.values`).
    Texture indices index each track's own `Track.textures`."""
    value_offsets: npt.NDArray[np.int64]
    """Where each track's rows start in `values`, then where the last ends; three rows per key
    for cubic tracks, so these differ from `key_offsets` only where there are cubic tracks."""
    @property
    def interpolations(self) -> list[Interpolation]:
        """Per track, its interpolation."""
    def track(self, i: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[Any]]:
        """The times and values of track row `i`, as views into `times` and `values`."""
    def __len__(self) -> int:
        """The number of tracks."""

class Clip:
    """One animation."""

    name: str
    duration: float
    looping: bool | None
    additive: bool
    frame_rate: float | None
    tracks: list[Track]
    def __init__(
        self,
        name: str,
        tracks: list[Track] | None = None,
        *,
        duration: float | None = None,
        looping: bool | None = None,
        additive: bool = False,
        frame_rate: float | None = None,
    ) -> None: ...
    def key_arrays(self) -> dict[Channel, KeyArrays]:
        """Every track's keys in a few arrays, one `KeyArrays` per channel present (in order of
        first appearance)."""

class Package:
    """A set of clips with an optional skeleton."""

    name: str
    clips: list[Clip]
    skeleton: Skeleton | None
    up_axis: Literal["y", "z"]
    def __init__(
        self,
        clips: list[Clip] | None = None,
        *,
        name: str = "",
        skeleton: Skeleton | None = None,
        up_axis: Literal["y", "z"] = "y",
    ) -> None: ...
    def clip(self, name: str) -> Clip | None: ...
    def key_arrays(self) -> dict[Channel, KeyArrays]:
        """Every track of every clip in a few arrays, one `KeyArrays` per channel present (in order
        of first appearance); `clips` and `tracks` say which track each row is."""

@final
class Skeleton:
    """Bones parent before child, with their rest pose (local TRS). Immutable."""

    def __init__(
        self,
        names: list[str],
        parents: npt.ArrayLike | None = None,
        *,
        translations: npt.ArrayLike | None = None,
        rotations: npt.ArrayLike | None = None,
        scales: npt.ArrayLike | None = None,
        ids: list[int | None] | None = None,
        hashes: list[int | None] | None = None,
    ) -> None: ...
    @property
    def names(self) -> list[str]: ...
    @property
    def parents(self) -> npt.NDArray[np.int32]:
        """Parent index per bone, -1 for a root."""
    @property
    def translations(self) -> npt.NDArray[np.float32]: ...
    @property
    def rotations(self) -> npt.NDArray[np.float32]: ...
    @property
    def scales(self) -> npt.NDArray[np.float32]: ...
    @property
    def ids(self) -> list[int | None]: ...
    @property
    def tags(self) -> list[int | None]: ...
    @property
    def hashes(self) -> list[int | None]: ...
    def find(self, target: Target | str) -> int | None: ...
    def __len__(self) -> int: ...

@final
class Sample:
    """One target's sampled channel: value shape (width,) for one time, (len(times), width) for many."""

    target: Target
    channel: Channel
    value: npt.NDArray[Any]
