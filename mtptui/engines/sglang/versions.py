"""The SGLang release assumed when nothing says otherwise (the mission's): one constant, imported everywhere."""

DEFAULT_VERSION = "0.5.12.post1"
