"""Older datasets read as the current format: pure functions, JSON in, JSON out.

Each step turns one version into the next: ``manifest`` and each ``item`` (given the manifest
of the same version, for what an item needs from it). :func:`migrate_manifest` and
:func:`migrate_item` chain the steps up to :data:`~hopvista.model.format.FORMAT_VERSION`.
Nothing on disk changes: a migrated item still points at the files the old build wrote.

Steps:

``2 → 3``
    Items: ``id`` gets the variant part (``X`` → ``X.base``; ``base_id`` stays ``X``);
    ``images`` (paths) and ``render`` (a dict keyed by role) become one list of image
    objects with their ``role``, ``sha256`` (from the manifest's ``files``), ``width``,
    ``height`` and ``render``; ``variant`` gets ``name`` ``"base"``, ``recipe`` ``null`` and
    ``parameters`` ``{}``; ``answer_type`` ``"indices"`` is added. Manifest:
    ``format_version`` 3 and ``migrated_from`` 2.

``3 → 4``
    Items are unchanged: format 4 adds the ``only`` claim, holds every statement's label
    open with any one modality withheld (docs/format.md, section 3.8) and records proxy
    readings (section 5.4): rules format-3 items were not made under, so ``gen verify``
    checks them by the rules of their own version, and a migrated manifest says the build
    had no defences (``config.defences`` false). Manifest: ``format_version`` 4
    (``migrated_from`` keeps the version written).

``4 → 5``
    Items are unchanged: format 5 lets a fact claim name a fact that several entities' texts
    state (true of any of them), which FC+CT+TR and FC+AR+TR use so that their false
    statements, too, keep their label open with any one modality withheld (docs/format.md,
    section 3.8). ``gen verify`` holds format-4 items to format 4's rules. Manifest:
    ``format_version`` 5.

``5 → 6``
    Items are unchanged: format 6 adds the ``rk_among`` op (CT+RK and AR+RK of a domain
    without a period axis: a table condition restricts the entities, the chart ranks among
    them), which no format-5 item holds. Manifest: ``format_version`` 6.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hopvista.model.format import FORMAT_VERSION

Json = dict[str, Any]


class MigrationError(ValueError):
    """An old item or manifest lacks what its migration needs."""


def _item_2_to_3(item: Json, manifest: Json) -> Json:
    files = manifest.get("files") or {}
    render = item.get("render") or {}
    images = []
    for path in item.get("images") or []:
        roles = [role for role, entry in render.items()
                 if isinstance(entry, dict) and entry.get("image") == path]
        if len(roles) != 1:
            raise MigrationError(f"image {path!r}: no single render entry records it")
        entry = render[roles[0]]
        if path not in files:
            raise MigrationError(f"image {path!r}: not in the manifest's files (no sha256)")
        drawn = {k: v for k, v in entry.items() if k not in ("image", "width", "height")}
        images.append({"role": roles[0], "path": path, "sha256": files[path],
                       "width": entry.get("width"), "height": entry.get("height"),
                       "render": drawn})
    variant = item.get("variant") or {}
    migrated: Json = {}
    for key, value in item.items():
        if key == "id":
            migrated["id"] = f"{value}.base"
        elif key == "images":
            migrated["images"] = images
        elif key == "render":
            continue
        elif key == "answer":
            migrated["answer"] = value
            migrated["answer_type"] = "indices"
        elif key == "variant":
            migrated["variant"] = {"name": "base", "recipe": None, "parameters": {}, **variant}
        else:
            migrated[key] = value
    return migrated


def _manifest_2_to_3(manifest: Json) -> Json:
    return {**manifest, "format_version": 3, "migrated_from": manifest.get("format_version")}


def _manifest_3_to_4(manifest: Json) -> Json:
    config = manifest.get("config")
    if isinstance(config, dict):
        config = {**config, "defences": False}
    return {**manifest, "format_version": 4, "config": config,
            "migrated_from": manifest.get("migrated_from", manifest.get("format_version"))}


def _manifest_4_to_5(manifest: Json) -> Json:
    return {**manifest, "format_version": 5,
            "migrated_from": manifest.get("migrated_from", manifest.get("format_version"))}


def _manifest_5_to_6(manifest: Json) -> Json:
    return {**manifest, "format_version": 6,
            "migrated_from": manifest.get("migrated_from", manifest.get("format_version"))}


def _item_unchanged(item: Json, manifest: Json) -> Json:
    return item


STEPS: dict[int, tuple[Callable[[Json], Json], Callable[[Json, Json], Json]]] = {
    2: (_manifest_2_to_3, _item_2_to_3),
    3: (_manifest_3_to_4, _item_unchanged),
    4: (_manifest_4_to_5, _item_unchanged),
    5: (_manifest_5_to_6, _item_unchanged),
}
"""``version: (manifest step, item step)`` to ``version + 1``."""

OLDEST = min(STEPS)


def supported(version: object) -> bool:
    """Whether a dataset of ``format_version`` ``version`` can be read."""
    return type(version) is int and OLDEST <= version <= FORMAT_VERSION


def _version(manifest: Json) -> int:
    version = manifest.get("format_version")
    if not supported(version):
        raise MigrationError(f"format_version {version!r} cannot be read (this hopvista reads "
                             f"{OLDEST}..{FORMAT_VERSION})")
    assert isinstance(version, int)
    return version


def migrate_manifest(manifest: Json) -> Json:
    """``manifest`` of any readable version as the current version (a new dict)."""
    version = _version(manifest)
    for step in range(version, FORMAT_VERSION):
        manifest = STEPS[step][0](manifest)
    return manifest


def migrate_item(item: Json, manifest: Json) -> Json:
    """``item`` of the version of ``manifest`` (the dataset's own, unmigrated manifest) as an
    item of the current version (a new dict; ``item`` is not changed)."""
    version = _version(manifest)
    for step in range(version, FORMAT_VERSION):
        item = STEPS[step][1](item, manifest)
        manifest = STEPS[step][0](manifest)
    return item
