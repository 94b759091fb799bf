"""The built-in ``materials`` source: inorganic materials whose properties vary with temperature.

See :mod:`hopvista.sources.materials.loader` for the world it yields,
:mod:`hopvista.sources.materials.physics` for the temperature models and
:mod:`hopvista.sources.materials.text` for the text and its facts.
"""
