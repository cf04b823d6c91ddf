"""What an integrator's test suite uses: fault rules on API requests and webhook deliveries, the
event stream of the log's call, SMS and delivery events, and the listener that forwards it to a
local URL (`telephony listen`)."""

from .fault_routes import ROUTES as FAULT_ROUTES
from .faults import Faults
from .middleware import api_faults
from .rules import FaultRules
from .stream import ROUTES as STREAM_ROUTES
from .stream import Streams

__all__ = ["FAULT_ROUTES", "STREAM_ROUTES", "FaultRules", "Faults", "Streams", "api_faults"]
