"""``gen verify``: re-prove a dataset without trusting anything the generator stored.

Importing this package makes ``hopvista.verify`` name it rather than the API function
:func:`hopvista.verify.dataset.verify`; the package is therefore callable, as that function, so that
``hopvista.verify(path)`` works whatever was imported before.
"""

import sys
import types
from typing import Any

from hopvista.verify.dataset import VerifyReport, verify, verify_dataset, verify_into

__all__ = ["VerifyReport", "verify", "verify_dataset", "verify_into"]


class _CallablePackage(types.ModuleType):
    """This package, callable as :func:`hopvista.verify.dataset.verify`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return verify(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
