"""Dashboard state fed by the log parser: `ServerState.apply(event)`, `summarize(files)` for `--summary`.

    from mtptui.sglang.state import ServerState
"""

from mtptui.sglang.state.decode import Sample
from mtptui.sglang.state.memory import RankMemory
from mtptui.sglang.state.model import ServerState
from mtptui.sglang.state.phases import PHASES
from mtptui.sglang.state.summary import state_to_dict

__all__ = ["PHASES", "RankMemory", "Sample", "ServerState", "state_to_dict"]
