"""The built-in statement types (FCMR Table 12): importing this module registers them."""

from hopvista.statements import (  # noqa: F401  (imported for their registrations)
    arithmetic,
    conditional_trend,
    fact,
    ranking,
    threshold,
    trend,
)
