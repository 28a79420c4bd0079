"""Benchmark suites: prompts with a stable id, a category and metadata.

A :class:`Suite` is a list of :class:`SuiteItem` ``{id, prompt, category, metadata}``. Built-in suites
and where their text comes from (each pinned to a commit; the project never commits these files):

==============  ==========================================================================  ==========
name            public source (repo @ commit : path)                                        category
==============  ==========================================================================  ==========
drawbench       mwomick/VaReSynth @06b6b877 : data/DrawBench.csv (mirror of Google's sheet)  ``Category``, stripped
editbench       linzhiqiu/t2v_metrics @60ce07b1 : datasets/SeeTRUE.csv, EditBench rows       attribute class
geneval         djghosh13/geneval @af4902f2 : prompts/evaluation_metadata.jsonl              ``tag``
t2i-compbench   Karine-Huang/T2I-CompBench : examples/dataset/*_val.txt (8 files)           file stem minus ``_val``
==============  ==========================================================================  ==========

EditBench: the official annotation files are not public in a form we can fetch, so the suite is the
239 of 240 EditBench items that SeeTRUE scored, keyed by ``aos`` (``a=ATTRIBUTE_o=OBJECT_s=SCENE``)
with the prompt SeeTRUE used (the "Full" prompt). Its category is the attribute *class* of the
EditBench paper (count, color, material, shape, size; ``other`` if unlisted); the raw attribute,
object, scene and whether the object is rendered text are in ``metadata``. A local file may be either
the derived CSV (``aos,attribute,object,scene,full_prompt,...``) or SeeTRUE.csv itself.

Where a suite comes from, in order: ``suite_file`` (``--suite-file``: a file, or for t2i-compbench a
folder of ``*_val.txt``); the cache ``$AUTOALIGN_HOME/suites/NAME/`` (a ``manifest.json`` records each
file's URL and sha256, checked on every load); else a download from the pinned source. Offline
(``AUTOALIGN_OFFLINE=1``, ``HF_HUB_OFFLINE=1`` or no network) an :class:`InputError` says which file
to pass. Any other ``name`` that is a path to a CSV/JSONL file is a user suite with a ``prompt``
column and optional ``category`` and ``id``.

Item ids are the given id (EditBench ``aos``, a user ``id`` column) or a content hash of
category and prompt, so the same prompt lines up across runs and machines.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import os
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from autoalign.errors import InputError
from autoalign.files import JsonlContents, atomic_write_bytes, atomic_write_json, read_jsonl
from autoalign.models.loading import autoalign_home

logger = logging.getLogger(__name__)

SUITE_NAMES: tuple[str, ...] = ("drawbench", "editbench", "geneval", "t2i-compbench", "shapes", "shapes-val", "shapes-val-300")
#: The shapes world's suites: held-out ``shapes`` (report it), ``shapes-val`` (choose settings on it) and
#: ``shapes-val-300`` (the same, three times larger, for pass-rule choices whose false passes 100 prompts cannot tell apart).
SHAPES_SUITES: tuple[str, ...] = ("shapes", "shapes-val", "shapes-val-300")
T2I_COMPBENCH_CATEGORIES: tuple[str, ...] = (
    "color", "shape", "texture", "spatial", "non_spatial", "complex", "3d_spatial", "numeracy",
)


@dataclass
class SuiteItem:
    """One benchmark prompt."""

    id: str
    prompt: str
    category: str = "uncategorized"
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Suite:
    """A named list of items plus where they came from (file path or URL, and its sha256)."""

    name: str
    items: list[SuiteItem]
    source: str = ""
    sha256: str = ""

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def categories(self) -> list[str]:
        """Categories in first-seen order."""
        return list(dict.fromkeys(item.category for item in self.items))

    def select(self, *, categories: Iterable[str] | None = None, limit: int | None = None) -> "Suite":
        """The items of the given categories (all if None), then ``limit`` of them spread over the categories.

        ``limit`` takes the first item of each category in turn (categories in first-seen order),
        then the second of each, and so on, and returns them in file order: ``--limit 3`` on
        DrawBench is three prompts of three categories, the same three every time. An unknown
        category is an :class:`InputError` listing the suite's categories.
        """
        items = self.items
        if categories:
            wanted = [c.strip() for c in categories if c.strip()]
            known = set(self.categories())
            unknown = [c for c in wanted if c not in known]
            if unknown:
                raise InputError(
                    f"--categories: unknown categor{'y' if len(unknown) == 1 else 'ies'} {unknown} for suite "
                    f"{self.name!r}; allowed: {', '.join(self.categories())}"
                )
            items = [item for item in items if item.category in wanted]
        if limit is not None:
            if limit < 1:
                raise InputError(f"--limit must be >= 1 (got {limit})")
            items = _spread(items, limit)
        return Suite(self.name, list(items), self.source, self.sha256)


def _spread(items: list[SuiteItem], limit: int) -> list[SuiteItem]:
    """``limit`` items taken round-robin over the categories (first-seen order), kept in file order."""
    by_category: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        by_category.setdefault(item.category, []).append(index)
    picked: list[int] = []
    depth = 0
    while len(picked) < min(limit, len(items)):
        for indices in by_category.values():
            if depth < len(indices) and len(picked) < limit:
                picked.append(indices[depth])
        depth += 1
    return [items[i] for i in sorted(picked)]


# --------------------------------------------------------------------------- ids and small helpers


def content_id(prompt: str, category: str = "") -> str:
    """A stable id from the item's content (12 hex characters of sha256)."""
    return hashlib.sha256(f"{category}\n{prompt}".encode("utf-8")).hexdigest()[:12]


def _unique_ids(items: list[SuiteItem]) -> list[SuiteItem]:
    """Make ids unique in file order: a repeated id gets ``-2``, ``-3``, ... (deterministic).

    A suffixed id never takes an id that another item already has (``x``, ``x``, ``x-2`` gives
    ``x``, ``x-3``, ``x-2``).
    """
    taken = {item.id for item in items}
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            n, base = 2, item.id
            while f"{base}-{n}" in taken:
                n += 1
            item.id = f"{base}-{n}"
            taken.add(item.id)
        seen.add(item.id)
    return items


def _jsonl_records(path: Path, what: str) -> list[tuple[int, dict[str, Any]]]:
    """The objects of a user's JSON-lines file with their line numbers; InputError naming the bad lines."""
    contents: JsonlContents = read_jsonl(_existing_file(path, what), append_only=False, what=what)
    if contents.bad_lines:
        shown = "; ".join(f"line {n}: {why}" for n, why in contents.bad_lines[:5])
        more = f" (and {len(contents.bad_lines) - 5} more)" if len(contents.bad_lines) > 5 else ""
        raise InputError(f"{what} {path}: {shown}{more}")
    return contents.records


def _existing_file(path: Path, what: str) -> Path:
    if not path.exists():
        raise InputError(f"{what}: file not found: {path}")
    if not path.is_file():
        raise InputError(f"{what}: {path} is a directory; give a file")
    return path


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _read_text(path: Path) -> str:
    _existing_file(path, "--suite-file")
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"--suite-file: file not found: {path}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"--suite-file: {path} is not UTF-8 text ({exc})") from None
    except OSError as exc:
        raise InputError(f"--suite-file: cannot read {path} ({exc.strerror or exc})") from None


def _clean_prompt(text: str) -> str:
    # SeeTRUE's EditBench text escapes quotes as \" inside CSV quoting; show them as plain quotes.
    return text.replace('\\"', '"').strip()


# --------------------------------------------------------------------------- parsers (one per format)


def parse_drawbench(path: str | Path) -> list[SuiteItem]:
    """DrawBench CSV ``Prompts,Category``; categories stripped (one has a trailing space)."""
    rows = list(csv.DictReader(io.StringIO(_read_text(Path(path)))))
    if rows and not {"Prompts", "Category"} <= set(rows[0]):
        raise InputError(f"--suite-file: {path} is not DrawBench (needs columns Prompts,Category; got {list(rows[0])})")
    items = []
    for row_no, row in enumerate(rows):
        prompt = (row.get("Prompts") or "").strip()
        if not prompt:
            continue
        category = (row.get("Category") or "").strip() or "uncategorized"
        items.append(SuiteItem(content_id(prompt, category), prompt, category, {"row": row_no}))
    return _unique_ids(items)


# EditBench attribute classes (EditBench paper: count, color, material, shape, size).
_EDITBENCH_ATTRIBUTE_CLASS: dict[str, tuple[str, ...]] = {
    "count": ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "few", "many",
              "group", "pile", "several", "three headed"),
    "color": ("orange", "silver", "blue", "gray", "grey", "pink", "yellow", "brown", "colorful", "dark", "green",
              "white", "beige", "beige and navy", "black", "bronze", "butter", "crimson", "dark colored",
              "dark gray", "emerald", "frost", "ginger", "light colored", "maroon", "plum", "purple", "red",
              "ruby", "salmon", "striped", "amber", "navy", "gold", "golden"),
    "material": ("stone", "wooden", "metal", "cloth", "paper", "fabric", "glass", "ceramic", "concrete",
                 "crochet", "dough", "nylon", "plastic", "steel", "wax", "wood", "leather"),
    "shape": ("round", "square", "flat", "rectangle", "triangle", "oval", "angular", "cylinder", "fan shaped",
              "half circle", "hexagon", "octagon", "octopus shaped", "pentagon", "split", "circle", "heart"),
    "size": ("small", "large", "tall", "gigantic", "massive", "tiny", "short", "little", "normal", "big", "huge",
             "slender", "tall and slender", "thin", "long"),
}
_ATTRIBUTE_TO_CLASS = {word: cls for cls, words in _EDITBENCH_ATTRIBUTE_CLASS.items() for word in words}


def editbench_attribute_class(attribute: str) -> str:
    """EditBench attribute class of a raw attribute (``"two"`` -> ``"count"``); ``"other"`` if unlisted."""
    return _ATTRIBUTE_TO_CLASS.get(attribute.strip().lower(), "other")


def parse_aos(aos: str) -> dict[str, str]:
    """``a=few_o=cat_s=indoor`` -> attribute/object/scene.

    SeeTRUE's keys are not all regular (``o=letter_style=indoor``, ``o=airstairs_o=outdoor``): the
    attribute runs to ``_o=``, the scene is after the last ``=``, the object is what lies between.
    """
    if not aos.startswith("a=") or "_o=" not in aos or aos.count("=") < 3:
        raise InputError(f"EditBench key {aos!r} is not of the form a=ATTRIBUTE_o=OBJECT_s=SCENE")
    attribute, rest = aos[2:].split("_o=", 1)
    obj, scene = rest.rsplit("=", 1)
    for suffix in ("_s", "_o"):
        obj = obj.removesuffix(suffix)
    return {"attribute": attribute.replace("~", " "), "object": obj.replace("~", " "), "scene": scene}


def _editbench_item(aos: str, prompt: str, extra: dict[str, Any]) -> SuiteItem:
    parts = parse_aos(aos)
    attribute = extra.pop("attribute", None) or parts["attribute"]
    obj = (extra.pop("object", None) or parts["object"]).replace("~", " ")
    scene = extra.pop("scene", None) or parts["scene"]
    meta = {"aos": aos, "attribute": attribute, "object": obj, "scene": scene,
            "text_rendering": obj == "letter_style", **extra}
    return SuiteItem(aos, _clean_prompt(prompt), editbench_attribute_class(attribute), meta)


def parse_editbench(path: str | Path) -> list[SuiteItem]:
    """The derived EditBench CSV (``aos,attribute,object,scene,full_prompt,...``) or SeeTRUE.csv."""
    rows = list(csv.DictReader(io.StringIO(_read_text(Path(path)))))
    if not rows:
        raise InputError(f"--suite-file: {path} has no rows")
    cols = set(rows[0])
    if {"aos", "full_prompt"} <= cols:
        items = []
        for row in rows:
            extra = {k: row[k] for k in ("attribute", "object", "scene") if row.get(k)}
            for k in ("seetrue_n_edited_images", "seetrue_n_label1"):
                if row.get(k, "").isdigit():
                    extra[k] = int(row[k])
            items.append(_editbench_item(row["aos"], row["full_prompt"], extra))
        return _unique_ids(items)
    if {"image", "text", "dataset_source"} <= cols:
        return editbench_from_seetrue(rows)
    raise InputError(
        f"--suite-file: {path} is neither the EditBench CSV (aos, full_prompt columns) nor SeeTRUE.csv "
        f"(image, text, dataset_source columns); got {sorted(cols)}"
    )


def editbench_from_seetrue(rows: list[dict[str, str]]) -> list[SuiteItem]:
    """Derive EditBench items from SeeTRUE rows: image ``N_AOS.png`` -> key AOS, text -> prompt."""
    seen: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.get("dataset_source", "").strip().lower() != "editbench":
            continue
        aos = Path(row["image"]).stem.split("_", 1)[1]
        entry = seen.setdefault(aos, {"prompt": row["text"], "n": 0, "n1": 0})
        entry["n"] += 1
        entry["n1"] += row.get("label", "").strip() == "1"
    return [
        _editbench_item(aos, e["prompt"], {"seetrue_n_edited_images": e["n"], "seetrue_n_label1": e["n1"]})
        for aos, e in seen.items()
    ]


def parse_geneval(path: str | Path) -> list[SuiteItem]:
    """GenEval ``evaluation_metadata.jsonl``: one object a line with ``prompt`` and ``tag``."""
    items = []
    for line_no, obj in _jsonl_records(Path(path), "--suite-file"):
        if "prompt" not in obj:
            raise InputError(f"--suite-file: {path} line {line_no} has no 'prompt' field")
        category = str(obj.get("tag") or "uncategorized")
        meta = {k: v for k, v in obj.items() if k not in ("prompt", "tag")}
        items.append(SuiteItem(content_id(obj["prompt"], category), obj["prompt"].strip(), category, meta))
    return _unique_ids(items)


def parse_t2i_compbench(path: str | Path) -> list[SuiteItem]:
    """T2I-CompBench ``*_val.txt`` (one prompt a line): a file, or a folder holding the 8 val files.

    Category = the file stem without ``_val`` (``color_val.txt`` -> ``color``).
    """
    path = Path(path)
    if path.is_dir():
        files = [path / f"{c}_val.txt" for c in T2I_COMPBENCH_CATEGORIES if (path / f"{c}_val.txt").exists()]
        if not files:
            raise InputError(f"--suite-file: folder {path} holds none of the T2I-CompBench *_val.txt files")
    else:
        files = [path]
    items = []
    for file in files:
        category = file.stem.removesuffix("_val")
        for line_no, line in enumerate(_read_text(file).splitlines(), 1):
            if line.strip():
                items.append(SuiteItem(content_id(line.strip(), category), line.strip(), category, {"line": line_no}))
    return _unique_ids(items)


def parse_user_file(path: str | Path) -> list[SuiteItem]:
    """A user suite: CSV with a header, or JSONL; field ``prompt`` required, ``category`` and ``id`` optional.

    Other columns/fields go into ``metadata``.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    text = _read_text(path)
    records: list[tuple[int, dict[str, Any]]] = []
    if suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        if not reader.fieldnames or "prompt" not in reader.fieldnames:
            raise InputError(f"suite file {path}: needs a 'prompt' column (got {reader.fieldnames}); "
                             "optional columns: category, id")
        records = [(i + 2, dict(row)) for i, row in enumerate(reader)]
    elif suffix == ".jsonl":
        records = _jsonl_records(path, "suite file")
    else:
        raise InputError(f"suite file {path}: must be .csv or .jsonl (got {suffix or 'no suffix'})")
    items = []
    for line_no, rec in records:
        prompt = str(rec.get("prompt") or "").strip()
        if not prompt:
            raise InputError(f"suite file {path} line {line_no}: empty 'prompt'")
        category = str(rec.get("category") or "").strip() or "uncategorized"
        given = str(rec.get("id") or "").strip()
        meta = {k: v for k, v in rec.items() if k not in ("prompt", "category", "id") and v not in (None, "")}
        items.append(SuiteItem(given or content_id(prompt, category), prompt, category, meta))
    if not items:
        raise InputError(f"suite file {path}: no prompts")
    given_ids = [str(r.get("id")).strip() for _, r in records if str(r.get("id") or "").strip()]
    dupes = sorted({i for i in given_ids if given_ids.count(i) > 1})
    if dupes:
        raise InputError(f"suite file {path}: duplicate id(s) {dupes[:5]}; ids must be unique")
    return _unique_ids(items)


# --------------------------------------------------------------------------- sources, cache, download


@dataclass(frozen=True)
class RemoteFile:
    """One file of a suite's public source, pinned to a commit, with the sha256 we expect."""

    name: str  # file name in the cache
    url: str
    sha256: str = ""  # expected content hash ("" = record on first download)


@dataclass(frozen=True)
class SuiteSource:
    name: str
    files: tuple[RemoteFile, ...]
    parse: Callable[[Path], list[SuiteItem]]
    example_file: str  # what to pass with --suite-file: a downloaded copy of the source file
    description: str


def _gh(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


_T2I_COMMITS = {  # per file: the commit each val file was last changed in
    "color": "7710d059c3391fe97fbf9e2ad3813ed0e7d87979",
    "shape": "7710d059c3391fe97fbf9e2ad3813ed0e7d87979",
    "texture": "7710d059c3391fe97fbf9e2ad3813ed0e7d87979",
    "spatial": "7710d059c3391fe97fbf9e2ad3813ed0e7d87979",
    "complex": "7710d059c3391fe97fbf9e2ad3813ed0e7d87979",
    "non_spatial": "41388b8b6ae716108ebb507133930c1f030990c3",
    "3d_spatial": "fc2c9b9f8ec357dcf1bb1b382c0df017afe9cd8c",
    "numeracy": "fc2c9b9f8ec357dcf1bb1b382c0df017afe9cd8c",
}
_T2I_SHA256 = {
    "color": "1634259756dbc77d13093d907d414480080ec9790a8c97ad09efaea7b2534f2d",
    "shape": "37e1a276906c7ea9516cbd7ac8501be896006c0c17ca7344f260562834455bae",
    "texture": "fbb5363515b4a28009e360afaaaf389d2dd2289e50dbb0c6ef4ea0c7fe4f3d4f",
    "spatial": "8707a1d7e42ce3002d95363cf55f74bd043c843ae27108f5125aaaa7840ca988",
    "complex": "1b808018b8d9916db3d47d5aa2ef18377a3549a56901a474156f799824cdf3b4",
    "non_spatial": "04c56cc9ac441dc9ea6c5157652058bd1635b5308526dd31bb29a1caab9a758d",
    "3d_spatial": "c9953597315f36a5fcb41291bb19bdc6ab5f64a0fa760d691b4854a73f5d1fe9",
    "numeracy": "dad8df141604b70ba7554bec724e3db0a80023680769b5c514854ea2d2527bbe",
}


def _parse_t2i_cache(path: Path) -> list[SuiteItem]:
    return parse_t2i_compbench(path.parent)


SOURCES: dict[str, SuiteSource] = {
    "drawbench": SuiteSource(
        "drawbench",
        (RemoteFile("DrawBench.csv",
                    _gh("mwomick/VaReSynth", "06b6b877879a172a26e484b045a1049cb8f9a050", "data/DrawBench.csv"),
                    "5f50241927354d1879b5b0b27cd3c83e8e6816a19fcc9c559053e8d09781c392"),),
        parse_drawbench,
        "path/to/DrawBench.csv",
        "DrawBench (Imagen): 200 prompts, 11 categories",
    ),
    "editbench": SuiteSource(
        "editbench",
        (RemoteFile("SeeTRUE.csv",
                    _gh("linzhiqiu/t2v_metrics", "60ce07b144b9bff24b8dac5317cb28586b1b2509", "datasets/SeeTRUE.csv"),
                    "175c78dffe54724259ed8466f9e71fbda8aaa4f479b99a3a3530a2c89f763fd0"),),
        parse_editbench,
        "path/to/SeeTRUE.csv",
        "EditBench (Imagen Editor): 239 of 240 items via SeeTRUE, keyed by aos",
    ),
    "geneval": SuiteSource(
        "geneval",
        (RemoteFile("evaluation_metadata.jsonl",
                    _gh("djghosh13/geneval", "af4902f2", "prompts/evaluation_metadata.jsonl"),
                    "5c48e0813e812e3c373fa5c8ed07a8f0a483be30272b4427b0559c8048e67c13"),),
        parse_geneval,
        "path/to/evaluation_metadata.jsonl",
        "GenEval: 553 prompts with object/count/colour/position metadata",
    ),
    "t2i-compbench": SuiteSource(
        "t2i-compbench",
        tuple(
            RemoteFile(f"{c}_val.txt",
                       _gh("Karine-Huang/T2I-CompBench", _T2I_COMMITS[c], f"examples/dataset/{c}_val.txt"),
                       _T2I_SHA256[c])
            for c in T2I_COMPBENCH_CATEGORIES
        ),
        _parse_t2i_cache,
        "path/to/T2I-CompBench/examples/dataset/ (a folder of *_val.txt, or one of them)",
        "T2I-CompBench val split: 300 prompts per category, 8 categories",
    ),
}

SUITE_PARSERS: dict[str, Callable[[Path], list[SuiteItem]]] = {
    "drawbench": parse_drawbench,
    "editbench": parse_editbench,
    "geneval": parse_geneval,
    "t2i-compbench": parse_t2i_compbench,
}


def offline() -> bool:
    """True when the user asked for no network (``AUTOALIGN_OFFLINE`` or ``HF_HUB_OFFLINE``)."""
    flags = (os.environ.get("AUTOALIGN_OFFLINE", ""), os.environ.get("HF_HUB_OFFLINE", ""))
    return any(f.strip().lower() in ("1", "true", "yes", "on") for f in flags)


def suite_cache_dir(cache_dir: str | Path | None = None) -> Path:
    return Path(cache_dir) if cache_dir else autoalign_home() / "suites"


def _offline_error(source: SuiteSource, reason: str) -> InputError:
    return InputError(
        f"suite {source.name!r} is not cached and cannot be downloaded ({reason}); pass a local copy with "
        f"--suite-file, e.g. --suite-file {source.example_file}"
    )


def _read_manifest(folder: Path) -> dict[str, Any]:
    try:
        return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def _cached(source: SuiteSource, folder: Path) -> bool:
    """All files present and matching the sha256 recorded in the manifest."""
    manifest = _read_manifest(folder).get("files", {})
    for rf in source.files:
        path = folder / rf.name
        recorded = manifest.get(rf.name, {}).get("sha256")
        if not path.exists() or not recorded:
            return False
        if file_sha256(path) != recorded:
            logger.warning("cached suite file %s does not match its recorded sha256; downloading again", path)
            return False
    return True


def _download(source: SuiteSource, folder: Path, timeout: float = 30.0) -> None:
    if offline():
        raise _offline_error(source, "offline: AUTOALIGN_OFFLINE or HF_HUB_OFFLINE is set")
    folder.mkdir(parents=True, exist_ok=True)
    entries: dict[str, Any] = {}
    for rf in source.files:
        logger.info("downloading %s", rf.url)
        try:
            with urllib.request.urlopen(rf.url, timeout=timeout) as resp:  # noqa: S310 - pinned https URL
                data = resp.read()
        except (urllib.error.URLError, OSError) as exc:
            raise _offline_error(source, f"download of {rf.url} failed: {exc}") from None
        digest = hashlib.sha256(data).hexdigest()
        if rf.sha256 and digest != rf.sha256:
            raise InputError(
                f"suite {source.name!r}: {rf.url} has sha256 {digest}, expected {rf.sha256}; the source changed. "
                f"Pass a trusted local copy with --suite-file, e.g. --suite-file {source.example_file}"
            )
        atomic_write_bytes(folder / rf.name, data)
        entries[rf.name] = {"url": rf.url, "sha256": digest, "bytes": len(data), "downloaded_at": time.time()}
    manifest = {"suite": source.name, "files": entries}
    atomic_write_json(folder / "manifest.json", manifest)


# ---------------------------------------------------------------------------------------------- the shapes suite

SHAPES_UNSEEN = "unseen_combinations"
#: Prompts per category; "shape" captions ("a red circle") have only 15 held-in colour-shape pairs.
SHAPES_TARGETS = {"counting": 60, "colour_binding": 60, "shape": 15, "size": 60, "spatial": 60, SHAPES_UNSEEN: 60}
#: The validation suite (n = 100), from the ``val`` split. It has no "shape" category: every caption of one
#: coloured shape is already in the held-out suite.
SHAPES_VAL_TARGETS = {"counting": 20, "colour_binding": 20, "size": 20, "spatial": 20, SHAPES_UNSEEN: 20}
#: The larger validation suite (n = 300): the same columns, 60 prompts each; its first 100 are ``shapes-val`` in the
#: same order (the suites are interleaved by category), so a ``shapes-val`` run is its first third.
SHAPES_VAL_300_TARGETS = {category: 60 for category in SHAPES_VAL_TARGETS}
#: ``unseen_combinations`` of the validation suite come from this index on of the ``compositional`` split
#: (the held-out suite takes its first ones), minus any caption the held-out suite has.
VAL_UNSEEN_START = 20_000


def shapes_items(targets: dict[str, int] | None = None, split: str = "test") -> list[SuiteItem]:
    """The ``shapes`` suite: distinct held-out world prompts per category (``test`` split;
    ``unseen_combinations`` from the ``compositional`` split), interleaved so that ``--limit`` takes every
    category. What the oracle says about a bench run on it: :mod:`autoalign.benchmarks.shapes_bench`.

    ``split="val"`` gives ``shapes-val``, the suite to choose loop settings on: captions of the ``val`` split
    (``unseen_combinations``: later ``compositional`` ones), none of them a caption of the held-out suite."""
    from autoalign.world.scene import spec_for

    if split not in ("test", "val"):
        raise InputError(f"the shapes suites come from the test or val split, not {split!r}")
    targets = targets or (SHAPES_TARGETS if split == "test" else SHAPES_VAL_TARGETS)
    seen: set[str] = set() if split == "test" else {item.prompt for item in shapes_items()}
    prefix = "shapes" if split == "test" else "shapes-val"
    start = 0 if split == "test" else VAL_UNSEEN_START
    columns = []
    for category, want in targets.items():
        column = []
        for i in range(5000):
            unseen = category == SHAPES_UNSEEN
            spec = spec_for("compositional", start + i) if unseen else spec_for(split, i, category)
            caption = spec.caption()
            if caption in seen:
                continue
            seen.add(caption)
            column.append(SuiteItem(f"{prefix}-{category}-{i:04d}", caption, category))
            if len(column) == want:
                break
        columns.append(column)
    items = []
    for k in range(max(len(c) for c in columns)):
        items.extend(c[k] for c in columns if k < len(c))
    return items


def load_suite(name: str, suite_file: str | Path | None = None, cache_dir: str | Path | None = None) -> Suite:
    """Load a suite by name (``drawbench``, ``editbench``, ``geneval``, ``t2i-compbench``) or a user file.

    ``suite_file`` (``--suite-file``) wins; then the cache; then a download of the pinned source.
    ``name`` may itself be a path to a user CSV/JSONL suite.
    """
    key = name.strip().lower().replace("_", "-")
    if key == "shapes" and suite_file is None:  # generated in code from the shapes world's held-out splits
        return Suite("shapes", shapes_items(), "generated: autoalign.world (test and compositional splits)", "")
    if key == "shapes-val" and suite_file is None:  # the validation twin: choose settings here
        return Suite("shapes-val", shapes_items(split="val"), "generated: autoalign.world (val and later compositional specs)", "")
    if key == "shapes-val-300" and suite_file is None:  # three times larger, shapes-val its first 100
        return Suite("shapes-val-300", shapes_items(SHAPES_VAL_300_TARGETS, split="val"),
                     "generated: autoalign.world (val and later compositional specs)", "")
    if key not in SOURCES:
        path = Path(name)
        if path.suffix.lower() in (".csv", ".jsonl") and path.exists():
            return Suite(path.stem, parse_user_file(path), str(path), file_sha256(path))
        if suite_file is not None:
            sf = Path(suite_file)
            return Suite(name, parse_user_file(sf), str(sf), file_sha256(sf) if sf.is_file() else "")
        raise InputError(
            f"--suite: unknown suite {name!r}; allowed: {', '.join(SUITE_NAMES)}, or a path to a .csv/.jsonl file "
            "with a 'prompt' column"
        )
    source = SOURCES[key]
    if suite_file is not None:
        path = Path(suite_file)
        if not path.exists():
            raise InputError(f"--suite-file: {path} does not exist (for {key}, e.g. {source.example_file})")
        items = SUITE_PARSERS[key](path)
        return Suite(key, items, str(path), file_sha256(path) if path.is_file() else "")
    folder = suite_cache_dir(cache_dir) / key
    if not _cached(source, folder):
        _download(source, folder)
    first = folder / source.files[0].name
    items = source.parse(first)
    return Suite(key, items, source.files[0].url, file_sha256(first))
