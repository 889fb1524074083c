"""Prompt sets: the built-in file, user files in both shapes, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtptui.bench.prompts import available_sets, load_prompt_set
from mtptui.errors import UserError


def test_builtin_sets_include_the_mission_prompt() -> None:
    sets = available_sets()
    assert {"rbtree", "chat", "long-context"} <= set(sets)
    rbtree = load_prompt_set(None)
    assert rbtree.name == "rbtree" and len(rbtree.prompts) == 1
    text = rbtree.prompts[0].text
    assert "red-black tree" in text
    assert 330 <= len(text.split()) <= 450  # about 512 tokens of English and code identifiers
    long = sets["long-context"].prompts[0]
    assert len(long.text) > 4 * len(rbtree.prompts[0].text) and long.messages()[0]["role"] == "system"
    assert len(sets["chat"].prompts) >= 3


def test_user_file_single_set_and_named_set(tmp_path: Path) -> None:
    single = tmp_path / "mine.toml"
    single.write_text('[[prompts]]\nname = "a"\ntext = "hello"\n[[prompts]]\ntext = "bye"\n')
    prompt_set = load_prompt_set(str(single))
    assert prompt_set.name == "mine" and [p.text for p in prompt_set.prompts] == ["hello", "bye"]
    assert prompt_set.cycle(3).text == "bye"
    several = tmp_path / "many.toml"
    several.write_text('[sets.x]\nprompts = [{text = "x"}]\n[sets.y]\nprompts = [{text = "y"}]\n')
    assert load_prompt_set(f"{several}:y").prompts[0].text == "y"
    with pytest.raises(UserError, match="several prompt sets"):
        load_prompt_set(str(several))


def test_user_config_file_adds_sets(isolated_dirs: Path) -> None:
    user = isolated_dirs / "xdg_config_home" / "mtptui" / "prompts.toml"
    user.parent.mkdir(parents=True)
    user.write_text('[sets.rbtree]\nprompts = [{text = "my own"}]\n')
    assert load_prompt_set("rbtree").prompts[0].text == "my own"
    assert "chat" in available_sets()


def test_digest_changes_with_the_text(tmp_path: Path) -> None:
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text('prompts = [{text = "one"}]\n')
    b.write_text('prompts = [{text = "two"}]\n')
    assert load_prompt_set(str(a)).digest() != load_prompt_set(str(b)).digest()


@pytest.mark.parametrize("content, message", [('prompts = [{name = "x"}]', "non-empty `text`"),
                                              ("prompts = [", "invalid TOML"), ("x = 1", "has no prompts")])
def test_bad_files_are_one_sentence(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(content)
    with pytest.raises(UserError, match=message):
        load_prompt_set(str(path))


def test_unknown_set_and_missing_file() -> None:
    with pytest.raises(UserError, match="unknown prompt set 'nope'.*rbtree"):
        load_prompt_set("nope")
    with pytest.raises(UserError, match="no such prompt file"):
        load_prompt_set("/nonexistent/p.toml")
