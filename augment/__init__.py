"""Perturbations and variant recipes."""
