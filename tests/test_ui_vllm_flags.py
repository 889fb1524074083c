"""The flags form on a vLLM host (the vLLM demo host file): vLLM's fields, vLLM's flag model resolving the rows and
judging the form (as `flags lint HOST` and a restart judge a vLLM profile), and a profile saved in vLLM's words."""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.widgets import Input, Label, Static

from mtptui.ui import messages
from tests.test_ui_flags import of_type, open_form
from tests.test_ui_vllm import vllm_app, vllm_host
from tests.ui_fixtures.support import SIZE, wait_until


async def test_the_flags_form_of_a_vllm_profile_speaks_vllm() -> None:
    app = vllm_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, app)
        head = str(form.query_one("#flags-head", Static).render())
        assert "vLLM 0.32.0" in head and "SGLang" not in head, head
        assert form.query_one("#flags-findings").border_title == "lint (vLLM's rules)"
        assert not form.findings, form.findings
        assert "no findings: vLLM would accept" in str(form.query_one("#flags-findings", Static).render())
        assert form.query_one("#f-max-num-seqs", Input).value == "16"
        resolved = [str(label.render()) for label in form.query(".extra-row .flags-resolved").results(Label)]
        assert resolved and all(text.startswith("→ --") for text in resolved), resolved
        command = str(form.query_one("#flags-command", Static).render())
        assert "-m vllm.entrypoints.openai.api_server" in command and "--max-model-len 131072" in command
        spec = form.query_one("#f-speculative-config", Input)
        spec.value = '{"method": "mtp", "num_speculative_tokens": "three"}'
        await wait_until(pilot, lambda: form.has_class("-errors"))
        shown = str(form.query_one("#flags-findings", Static).render())
        assert "vLLM refuses --speculative-config num_speculative_tokens" in shown and "SGLang" not in shown, shown


async def test_a_profile_saved_from_the_vllm_form_is_a_vllm_profile() -> None:
    app = vllm_app()
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        form = await open_form(pilot, app)
        form.query_one("#f-max-num-seqs", Input).value = "8"
        form.query_one("#flags-name", Input).value = "eight"
        await pilot.pause(0.5)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: of_type(posted, messages.ProfileSaved))
    saved = of_type(posted, messages.ProfileSaved)[0]
    flags = tomllib.loads(Path(saved.path).read_text(encoding="utf-8"))["profiles"]["eight"]["flags"]
    assert flags == {**vllm_host().profile("restored").flags, "max-num-seqs": 8}
