"""The materials catalogue: real-ish room-temperature properties read from the pack's YAML.

Each entry names a material, its class and structure, the text facts about it (structure,
uses, production methods, ...) and the parameters of the temperature models in
:mod:`hopvista.sources.materials.physics`. Errors name the file and the entry.
"""

from __future__ import annotations

import contextlib
import functools
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from hopvista.errors import UserError
from hopvista.yamlfile import read_yaml

CATALOGUE_FILE = "materials.yaml"

MaterialClass = Literal["metal", "semiconductor", "insulator", "glass"]

#: standard atomic weights (g/mol) of the elements the catalogue may use
ATOMIC_MASS: dict[str, float] = {
    "H": 1.008, "Li": 6.94, "Be": 9.012, "B": 10.81, "C": 12.011, "N": 14.007, "O": 15.999,
    "F": 18.998, "Na": 22.990, "Mg": 24.305, "Al": 26.982, "Si": 28.085, "P": 30.974,
    "S": 32.06, "Cl": 35.45, "K": 39.098, "Ca": 40.078, "Sc": 44.956, "Ti": 47.867,
    "V": 50.942, "Cr": 51.996, "Mn": 54.938, "Fe": 55.845, "Co": 58.933, "Ni": 58.693,
    "Cu": 63.546, "Zn": 65.38, "Ga": 69.723, "Ge": 72.630, "As": 74.922, "Se": 78.971,
    "Br": 79.904, "Sr": 87.62, "Y": 88.906, "Zr": 91.224, "Nb": 92.906, "Mo": 95.95,
    "Pd": 106.42, "Ag": 107.87, "Cd": 112.41, "In": 114.82, "Sn": 118.71, "Sb": 121.76,
    "Te": 127.60, "I": 126.90, "Cs": 132.91, "Ba": 137.33, "La": 138.91, "Ta": 180.95, "W": 183.84,
    "Pt": 195.08, "Au": 196.97, "Pb": 207.2, "Bi": 208.98,
}

_TOKEN = re.compile(r"([A-Z][a-z]?)(\d+(?:\.\d+)?)?")


def composition(formula: str) -> dict[str, float]:
    """``'Bi2Te3' -> {'Bi': 2, 'Te': 3}``; raise ``ValueError`` on anything else."""
    out: dict[str, float] = {}
    pos = 0
    for match in _TOKEN.finditer(formula):
        if match.start() != pos:
            break
        symbol, count = match.group(1), match.group(2)
        if symbol not in ATOMIC_MASS:
            raise ValueError(f"unknown element {symbol!r} in formula {formula!r}")
        out[symbol] = out.get(symbol, 0.0) + (float(count) if count else 1.0)
        pos = match.end()
    if pos != len(formula) or not out:
        raise ValueError(f"cannot read formula {formula!r} (element symbols and counts only)")
    return out


class Material(BaseModel):
    """One catalogue entry (units in the catalogue file's header)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str = Field(min_length=1, description="Display name (table row, statements).")
    full: str = Field(min_length=1, description="Common name used in the text.")
    cls: MaterialClass = Field(alias="class")
    family: str
    formula: str
    structure: str
    system: str | None = None
    space_group: str | None = None
    year: int | None = Field(default=None, ge=1000, le=2030)
    colour: str | None = None
    mineral: str | None = None
    magnetic: str | None = None
    melting: int = Field(gt=0, description="°C")
    melting_kind: Literal["melts", "decomposes", "sublimes", "softens"] = "melts"
    gap: float = Field(ge=0, description="eV at 300 K")
    gap_slope: float = Field(default=0.0, description="meV/K near 300 K")
    gap_type: Literal["direct", "indirect"] | None = None
    density: float = Field(gt=0, description="g/cm3 at 300 K")
    e_form: float = Field(description="eV/atom")
    bulk: float = Field(gt=0, description="GPa at 300 K")
    bulk_slope: float = Field(default=-1.5e-4, gt=-1e-3, lt=1e-3, description="1/K")
    kappa: float = Field(default=1.0, gt=0, description="W/(m K) at 300 K")
    kappa_exp: float | None = Field(default=None, ge=-1.0, le=2.0,
                                    description="default 1 (phonons); metals: 0")
    debye: float = Field(gt=0, description="K")
    alpha: float = Field(description="1e-6/K at 300 K")
    seebeck: float | None = Field(default=None, description="µV/K at 300 K")
    rho: float | None = Field(default=None, gt=0, description="µΩ·cm at 300 K (metals)")
    rho_res: float = Field(default=0.02, ge=0, le=1.2,
                           description="above 1: resistivity falls with T (metallic glasses)")
    rho_exp: float = Field(default=1.1, ge=-1.0, le=3.0)
    uses: list[str] = Field(min_length=1)
    methods: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> Material:
        composition(self.formula)
        if self.cls == "metal":
            if self.gap != 0 or self.rho is None:
                raise ValueError("a metal has gap 0 and a resistivity rho")
        else:
            if self.gap <= 0 or self.rho is not None:
                raise ValueError("a non-metal has a positive gap and no resistivity rho")
            if self.gap_slope == 0:
                raise ValueError("a non-metal needs gap_slope (the sign of dEg/dT)")
        amorphous = self.structure == "amorphous"
        if self.cls == "glass" and not amorphous:
            raise ValueError("a glass has structure 'amorphous'")
        if amorphous and (self.kappa_exponent >= 0 or self.system or self.space_group):
            raise ValueError("an amorphous material has a rising conductivity (kappa_exp < 0) "
                             "and no crystal system or space group")
        return self

    @property
    def kappa_exponent(self) -> float:
        """Exponent of the lattice conductivity ``(300/T)^n``: phonon-limited crystals 1 by
        default; in metals the small lattice part is disorder-limited (0) unless given."""
        if self.kappa_exp is not None:
            return self.kappa_exp
        return 0.0 if self.cls == "metal" else 1.0

    @property
    def id(self) -> str:
        """A stable entity id derived from the name."""
        return "mat-" + re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")

    @property
    def mean_atomic_mass(self) -> float:
        """Formula mass divided by the number of atoms in the formula (g/mol)."""
        comp = composition(self.formula)
        return sum(ATOMIC_MASS[e] * n for e, n in comp.items()) / sum(comp.values())


class Catalogue(BaseModel):
    """The catalogue file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    materials: list[Material] = Field(min_length=3)


def _message(path: Path, data: Any, exc: ValidationError) -> str:
    first = exc.errors()[0]
    loc = list(first["loc"])
    where = ".".join(str(p) for p in loc) or "(top level)"
    if len(loc) >= 2 and loc[0] == "materials" and isinstance(loc[1], int):
        with contextlib.suppress(KeyError, TypeError, IndexError):
            where += f" ({data['materials'][loc[1]]['name']})"
    return f"{path}: field '{where}': {first['msg']}"


@functools.lru_cache(maxsize=4)
def load_catalogue(folder: str) -> tuple[Material, ...]:
    """The materials of the catalogue in the pack folder ``folder`` (validated, cached)."""
    path = Path(folder) / CATALOGUE_FILE
    if not path.exists():
        raise UserError(f"{path}: file not found (the materials source reads its catalogue "
                        "from the pack folder)")
    data, _ = read_yaml(path)
    try:
        catalogue = Catalogue.model_validate(data)
    except ValidationError as exc:
        raise UserError(_message(path, data, exc)) from None
    seen: dict[str, str] = {}
    for material in catalogue.materials:
        if material.id in seen:
            raise UserError(f"{path}: materials {seen[material.id]!r} and {material.name!r} "
                            "have the same id")
        seen[material.id] = material.name
    return tuple(catalogue.materials)
