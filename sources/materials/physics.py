"""Temperature models of the materials world: each column as a function of T (kelvin).

The models are textbook ones, chosen so that the sign of each temperature coefficient
differs between material classes the way it does in real materials:

* band gap — Varshni form ``Eg(T) = Eg(300) - a (g(T) - g(300))``, ``g = T^2/(T + 250 K)``,
  ``a`` fixed by the catalogue's dEg/dT at 300 K: it falls for most semiconductors and
  insulators and rises for the lead chalcogenides, SnTe and the halide perovskites; 0 for metals;
* resistivity (metals only) — residual part plus a phonon part ``~ (T/300)^p``: rises for
  metals (steeper for ferromagnets), nearly flat for alloys, falls for graphite (p < 0);
* thermal conductivity — phonon-limited crystals ``~ (300/T)^n`` fall, glasses rise
  (n < 0); metals follow Wiedemann-Franz ``L0 T / rho(T)`` plus a small lattice part, so pure
  metals fall slightly and alloys rise;
* heat capacity per gram — Debye ``3R D(theta/T) / M`` plus ``Cp - Cv = 9 alpha^2 B V T``:
  rises towards the Dulong-Petit value, fastest for stiff, light solids;
* linear thermal expansion — Grüneisen, ``alpha(T) ~ Cv(T)``; negative for ZrW2O8 and ScF3;
* volume per atom and density — integrated expansion from 300 K (density falls with T except
  for negative-thermal-expansion materials);
* bulk modulus — linear softening (a few glasses and invar stiffen);
* Seebeck coefficient — metals ``~ T``; doped semiconductors rise in magnitude up to the
  bipolar temperature ``Eg / (2 e |S|)`` (Goldsmid-Sharp) and fall beyond it;
* formation energy per atom — a 0 K quantity, the same at every temperature.
"""

from __future__ import annotations

import math

import numpy as np

from hopvista.sources.materials.catalogue import Material

R = 8.314462618  # J/(mol K)
AVOGADRO_A3 = 0.602214076  # N_A * 1e-24: g/cm3 = M [g/mol] / (0.6022 * V [A^3])
LORENZ = 2.44e-8  # W Ohm / K^2
VARSHNI_BETA = 250.0
ROOM = 300.0
_G_PRIME_ROOM = (ROOM**2 + 2 * VARSHNI_BETA * ROOM) / (ROOM + VARSHNI_BETA) ** 2


_X_GRID = np.geomspace(0.05, 200.0, 6001)


def _debye_table() -> np.ndarray:
    t = np.linspace(1e-9, _X_GRID[-1], 400_001)
    f = t**4 * np.exp(-t) / (-np.expm1(-t)) ** 2  # = t^4 e^t / (e^t - 1)^2, overflow-free
    cumulative = np.concatenate(([0.0], np.cumsum((f[1:] + f[:-1]) * np.diff(t) / 2)))
    return 3.0 / _X_GRID**3 * np.interp(_X_GRID, t, cumulative)


_D_TABLE = _debye_table()
_LOG_X = np.log(_X_GRID)


def debye_cv(x: float) -> float:
    """Debye heat-capacity function ``Cv / 3R`` at ``x = theta / T`` (tabulated, interpolated
    in log x; exact to about 1e-6)."""
    if x <= _X_GRID[0]:
        return 1.0 - x * x / 20.0  # high-temperature series
    return float(np.interp(math.log(x), _LOG_X, _D_TABLE))


def band_gap(m: Material, t: float) -> float:
    """Band gap in eV (0 for metals)."""
    if m.cls == "metal":
        return 0.0

    def g(temp: float) -> float:
        return temp * temp / (temp + VARSHNI_BETA)

    a = -m.gap_slope * 1e-3 / _G_PRIME_ROOM
    return max(0.01, m.gap - a * (g(t) - g(ROOM)))


def expansion(m: Material, t: float) -> float:
    """Linear thermal expansion coefficient in 1e-6/K (Grüneisen: proportional to Cv)."""
    return m.alpha * debye_cv(m.debye / t) / debye_cv(m.debye / ROOM)


def volume_ratio(m: Material, t: float, steps: int = 40) -> float:
    """``V(T) / V(300 K)`` from the integrated volume expansion ``3 alpha``."""
    grid = np.linspace(ROOM, t, steps + 1)
    x = np.maximum(m.debye / grid, _X_GRID[0])
    cv = np.interp(np.log(x), _LOG_X, _D_TABLE)
    alphas = m.alpha * 1e-6 * cv / debye_cv(m.debye / ROOM)
    integral = float(np.sum((alphas[1:] + alphas[:-1]) * np.diff(grid)) / 2)
    return math.exp(3.0 * integral)


def volume_per_atom(m: Material, t: float) -> float:
    """Volume per atom in cubic ångström."""
    return m.mean_atomic_mass / (AVOGADRO_A3 * m.density) * volume_ratio(m, t)


def density(m: Material, t: float) -> float:
    """Density in g/cm3."""
    return m.density / volume_ratio(m, t)


def bulk_modulus(m: Material, t: float) -> float:
    """Bulk modulus in GPa (linear in T)."""
    return m.bulk * (1.0 + m.bulk_slope * (t - ROOM))


def resistivity(m: Material, t: float) -> float | None:
    """Electrical resistivity in µΩ·cm; ``None`` for non-metals (not reported)."""
    if m.rho is None:
        return None
    return m.rho * (m.rho_res + (1.0 - m.rho_res) * math.pow(t / ROOM, m.rho_exp))


def thermal_conductivity(m: Material, t: float) -> float:
    """Thermal conductivity in W/(m K)."""
    lattice = m.kappa * math.pow(ROOM / t, m.kappa_exponent)
    rho = resistivity(m, t)
    if rho is None:
        return lattice
    return LORENZ * t / (rho * 1e-8) + lattice


def heat_capacity(m: Material, t: float) -> float:
    """Specific heat capacity at constant pressure in J/(g K): Debye ``Cv`` plus the
    thermodynamic ``Cp - Cv = 9 alpha^2 B V T`` (per mole of atoms)."""
    cv = 3.0 * R * debye_cv(m.debye / t)
    alpha = expansion(m, t) * 1e-6
    molar_volume = volume_per_atom(m, t) * 1e-30 * AVOGADRO_A3 * 1e24  # m^3 per mol of atoms
    cp = cv + 9.0 * alpha * alpha * bulk_modulus(m, t) * 1e9 * molar_volume * t
    return cp / m.mean_atomic_mass


def seebeck(m: Material, t: float) -> float | None:
    """Seebeck coefficient in µV/K; ``None`` where the catalogue reports none."""
    if m.seebeck is None:
        return None
    if m.cls == "metal":
        return m.seebeck * t / ROOM
    peak = min(5000.0, max(250.0, m.gap / (2.0 * abs(m.seebeck) * 1e-6)))

    def shape(x: float) -> float:
        return 2.0 * x / (1.0 + x * x)

    return m.seebeck * shape(t / peak) / shape(ROOM / peak)


def formation_energy(m: Material, t: float) -> float:
    """Formation energy per atom in eV (temperature-independent)."""
    return m.e_form


MODELS = {
    "band_gap": band_gap,
    "density": density,
    "volume_per_atom": volume_per_atom,
    "formation_energy": formation_energy,
    "bulk_modulus": bulk_modulus,
    "thermal_conductivity": thermal_conductivity,
    "heat_capacity": heat_capacity,
    "thermal_expansion": expansion,
    "seebeck": seebeck,
    "resistivity": resistivity,
}
"""Column key -> model ``(material, T) -> value or None``."""
