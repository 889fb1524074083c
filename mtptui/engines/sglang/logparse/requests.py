"""The per-request finish line that `--log-requests` prints: tokens, latency and the request's own acceptance.

Text format (the request logger's own handler, `[date time] ` prefix, no rank tag; the same in 0.5.2,
0.5.12.post1 and 0.5.23), `out` being the response dict with `meta_info` last:

    Finish: obj=GenerateReqInput(...), out={'text': '…', 'output_ids': [...], 'meta_info': {'id': '…',
      'finish_reason': {'type': 'stop', 'matched': 151645}, 'prompt_tokens': 25, …, 'completion_tokens': 256,
      'cached_tokens': 0, 'e2e_latency': 3.21, 'spec_accept_rate': 0.66, 'spec_accept_length': 2.98, …,
      'spec_verify_ct': 86, …}}

With `--log-requests-format json` (0.5.12.post1, 0.5.23) the message is one JSON object with
`"event": "request.finished"`, `rid`, `obj` and `out.meta_info`.

`spec_accept_rate` (correct drafts / proposed drafts) and `spec_accept_length` (completion tokens / verify
steps, bonus token included) are in `meta_info` when speculative decoding is on, in 0.5.12.post1 and 0.5.23
(sglang PR #11441); 0.5.2 prints only `spec_verify_ct`, so there they are null. Any key may be missing (a request
that was aborted, an embedding request): its field is then null.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mtptui.engines.sglang.logparse.events import blank_fields
from mtptui.engines.sglang.logparse.values import to_float, to_int

Parsed = tuple[str, dict[str, Any]] | None

TEXT_HEAD = "Finish: obj="
META = "'meta_info': {"
JSON_HEAD = '{"timestamp": '
JSON_EVENT = '"event": "request.finished"'
META_KEY = re.compile(r"'(\w+)': ('[^']*'|\"[^\"]*\"|\{'type': '\w+'|[-+\w.]+)")

CONVERT = {  # meta_info key → (field, converter of its text)
    "prompt_tokens": ("prompt_tokens", to_int),
    "completion_tokens": ("completion_tokens", to_int),
    "cached_tokens": ("cached_tokens", to_int),
    "reasoning_tokens": ("reasoning_tokens", to_int),
    "e2e_latency": ("e2e_latency_s", to_float),
    "spec_verify_ct": ("spec_verify_ct", to_int),
    "spec_accept_length": ("spec_accept_length", to_float),
    "spec_accept_rate": ("spec_accept_rate", to_float),
}


def request_finish(msg: str) -> Parsed:
    """A `request_finish` event's fields for a finish line in either format, else None."""
    if msg.startswith(TEXT_HEAD):
        return "request_finish", _from_text(msg)
    if msg.startswith(JSON_HEAD) and JSON_EVENT in msg:
        return _from_json(msg)
    return None


def _from_text(msg: str) -> dict[str, Any]:
    """Reads the keys of the last `'meta_info': {` (a prompt or output text printed before it may contain one)."""
    fields = blank_fields("request_finish")
    start = msg.rfind(META)
    if start < 0:
        return fields
    seen = set()
    for key, value in META_KEY.findall(msg, start + len(META)):
        if key in seen:  # the first one is meta_info's own; nested dicts (finish_reason) come later
            continue
        seen.add(key)
        if key == "id":
            fields["rid"] = value.strip("'\"")
        elif key == "finish_reason":
            fields["finish_reason"] = value.rpartition("'type': ")[2].strip("'") if value != "None" else None
        elif key in CONVERT:
            name, convert = CONVERT[key]
            fields[name] = convert(value)
    return fields


def _from_json(msg: str) -> Parsed:
    try:
        record = json.loads(msg)
        meta = record["out"]["meta_info"]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(meta, dict):
        return None
    fields = blank_fields("request_finish")
    fields["rid"] = _text(record.get("rid", meta.get("id")))
    reason = meta.get("finish_reason")
    fields["finish_reason"] = _text(reason.get("type")) if isinstance(reason, dict) else None
    for key, (name, convert) in CONVERT.items():
        value = meta.get(key)
        fields[name] = convert(str(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return "request_finish", fields


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
