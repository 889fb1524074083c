"""Dashboard state fed by the log parser: `ServerState.apply(event)`, `summarize(files)` for `--summary`.

    from mtptui.engines.sglang.state import ServerState
"""

from mtptui.engines.sglang.state.decode import Sample
from mtptui.engines.sglang.state.memory import RankMemory
from mtptui.engines.sglang.state.model import ServerState
from mtptui.engines.sglang.state.phases import PHASES
from mtptui.engines.sglang.state.summary import state_to_dict

__all__ = ["PHASES", "RankMemory", "Sample", "ServerState", "state_to_dict"]
