"""Lazy imports of the image libraries behind the ``augment`` extra, and isolation of the
global random state that augraphy draws from.

``import hopvista.augment`` stays light: OpenCV, albumentations and augraphy are imported by
the first perturbation that needs them, and a missing one is a :class:`UserError` naming the
extra to install.
"""

from __future__ import annotations

import importlib
import os
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

import numpy as np

from hopvista.errors import UserError

EXTRA = "augment"
"""The pip extra that installs OpenCV, albumentations and augraphy."""


def require(module: str, what: str) -> ModuleType:
    """Import ``module`` (e.g. ``"cv2"``) or raise a ``UserError`` naming the pip extra.

    ``what`` is the perturbation asking (it goes into the message).
    """
    if module.split(".")[0] == "albumentations":
        os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # its import checks the network
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise UserError(f"perturbation {what!r} needs {module.split('.')[0]}: "
                        f"pip install 'hopvista[{EXTRA}]' ({exc})") from None


_GLOBAL_RNG_LOCK = threading.Lock()


@contextmanager
def seeded_global_rngs(seed: int) -> Iterator[None]:
    """Run a block with Python's and NumPy's *global* generators seeded with ``seed``, then put
    back the states they had.

    For libraries (augraphy) that draw from the global generators: their draws become a
    function of ``seed`` and the caller's own global state is left as it was. A module lock
    serialises such blocks between threads of hopvista; a thread of other code that draws from
    the global generators at the same moment would still disturb both, which is why only
    augraphy's calls run inside.
    """
    with _GLOBAL_RNG_LOCK:
        py_state = random.getstate()
        np_state = np.random.get_state()
        random.seed(seed)
        np.random.seed(seed)
        try:
            yield
        finally:
            random.setstate(py_state)
            np.random.set_state(np_state)
