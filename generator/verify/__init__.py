"""``gen verify``: re-prove a dataset without trusting anything the generator stored."""

from hopvista.verify.dataset import verify_dataset, verify_into

__all__ = ["verify_dataset", "verify_into"]
