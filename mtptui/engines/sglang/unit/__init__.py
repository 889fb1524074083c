"""systemd units that run SGLang: read ExecStart=/Environment=/EnvironmentFile=, write a new launch back."""

from mtptui.engines.sglang.unit.unit import Unit, read_unit, unit_flagset
from mtptui.engines.sglang.unit.write import with_launch

__all__ = ["Unit", "read_unit", "unit_flagset", "with_launch"]
