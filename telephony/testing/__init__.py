"""What an integrator's test suite uses: fault rules on API requests and webhook deliveries, the
event stream of the log's call, SMS and delivery events, the listener that forwards it to a local URL
(`telephony listen`), scenario files and their runner, and the pytest plugin's parts (its entry point
is `telephony.testing.plugin`)."""

from .fault_routes import ROUTES as FAULT_ROUTES
from .faults import Faults
from .messages import Message, Messages
from .middleware import api_faults
from .rules import FaultRules
from .scenarios import ROUTES as SCENARIO_ROUTES
from .stream import ROUTES as STREAM_ROUTES
from .stream import Streams, View, streamed

__all__ = ["FAULT_ROUTES", "SCENARIO_ROUTES", "STREAM_ROUTES", "FaultRules", "Faults", "Message", "Messages", "Streams",
           "View", "api_faults", "streamed"]  # fmt: skip
