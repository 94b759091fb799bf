"""Variants of items (``gen augment``): a recipe's plan applied to a base item, written as a
dataset.
"""

DEFAULT_VARIANTS = "web,latex,excel,custom,noise,structural,partial,missing,screenshot,photo"
"""The variants made when none are named: TableVista's ten."""
