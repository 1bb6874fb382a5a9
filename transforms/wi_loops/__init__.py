"""Work-item loops with barriers, as stages (no pass in this package).

``regions`` (segments, lifted ops, uniformity) → ``storage`` (liveness across barriers and
the storage plan, out-of-SSA copies and coalescing) → ``emit`` (nests from the plan);
``fission`` runs the three; ``dispatch`` is the fallback for any control flow; ``check`` the
static check of the result; ``nests`` the interface the passes implement.
"""

from xmux.transforms.wi_loops.check import check_storage
from xmux.transforms.wi_loops.dispatch import Dispatch
from xmux.transforms.wi_loops.fission import Fission
from xmux.transforms.wi_loops.nests import Nest, NestFactory, Unstructured, storable
from xmux.transforms.wi_loops.regions import lifts_for_barriers

__all__ = [
    "Dispatch",
    "Fission",
    "Nest",
    "NestFactory",
    "Unstructured",
    "check_storage",
    "lifts_for_barriers",
    "storable",
]
