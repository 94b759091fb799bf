"""Variants of items (``gen augment``): a recipe's plan applied to a base item, written as a
dataset.
"""
