"""``gen verify``: re-prove a dataset without trusting anything the generator stored.

Importing this package makes ``hopvista.verify`` name it rather than the API function
:func:`hopvista.verify.outcome.verify`; the package is therefore callable, as that function,
so that ``hopvista.verify(path)`` works whatever was imported before.
"""

import sys
import types
from typing import Any

from hopvista.verify.dataset import verify_dataset, verify_into
from hopvista.verify.outcome import VerifyReport
from hopvista.verify.outcome import verify as verify_path

__all__ = ["VerifyReport", "verify_dataset", "verify_into", "verify_path"]


class _CallablePackage(types.ModuleType):
    """This package, callable as :func:`hopvista.verify.outcome.verify`."""

    def __call__(self, *args: Any, **kwargs: Any) -> VerifyReport:
        return verify_path(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
