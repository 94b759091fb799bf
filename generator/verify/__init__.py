"""``gen verify``: re-prove a dataset without trusting anything the generator stored."""

from hopvista.verify.checks import verify_dataset

__all__ = ["verify_dataset"]
