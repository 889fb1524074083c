"""The SGLang API rules every client shares (mtptui.engines.sglang.api): which path first, what counts as an answer."""

from __future__ import annotations

from mtptui.engines.sglang.api import served_models, server_info


def recording(answers: dict[str, tuple[int, object]]):
    asked: list[str] = []

    async def get_json(path: str):
        asked.append(path)
        return answers.get(path, (404, None))

    return get_json, asked


async def test_server_info_asks_the_current_path_first_and_falls_back_to_the_old_one():
    get_json, asked = recording({"/get_server_info": (200, {"version": "0.3.0"})})
    assert await server_info(get_json) == {"version": "0.3.0"}
    assert asked == ["/server_info", "/get_server_info"]
    get_json, asked = recording({"/server_info": (200, {"version": "0.5.23"})})
    assert await server_info(get_json) == {"version": "0.5.23"} and asked == ["/server_info"]


async def test_only_a_json_object_with_status_200_is_an_answer():
    get_json, _ = recording({"/server_info": (503, {"x": 1}), "/get_server_info": (200, ["not", "an", "object"])})
    assert await server_info(get_json) is None
    get_json, asked = recording({"/v1/models": (200, {"data": [{"id": "q"}]})})
    assert await served_models(get_json) == {"data": [{"id": "q"}]} and asked == ["/v1/models"]
