"""mtptui: a terminal dashboard for live SGLang inference ops."""

__version__ = "0.1.0"
