"""SGLang knowledge: log parser and state, launch-flag model and rules, server API client."""
