"""Model paths: the known-good profile's (every profile's when none is known-good), the unit's and the running
server's exist on the host (``test -e``, all in one round trip). A Hugging Face id is not a path: not checked."""

from __future__ import annotations

from mtptui.ops.checks import FAIL, OK, WARN, Context, Result
from mtptui.remote.shell import Command, script

NAME = "model"
# argv: PATH... Prints yes or no per path; "~/" is the login user's home.
EXISTS = r"""for p; do
  case $p in "~/"*) p="$HOME/${p#??}";; esac
  if [ -e "$p" ]; then echo yes; else echo no; fi
done""".strip()


def model_sources(ctx: Context) -> dict[str, list[str]]:
    """Model path -> where it comes from ("profile restored", "unit x.service", "running server")."""
    host = ctx.host
    names = [host.known_good] if host.known_good else sorted(host.profiles)
    sources: dict[str, list[str]] = {}
    for name in names:
        sources.setdefault(host.profiles[name].model_path, []).append(f"profile {name}")
    for path, labels in ctx.models.items():
        known = sources.setdefault(path, [])
        for label in labels:
            if label not in known:
                known.append(label)
    return sources


def is_path(model: str) -> bool:
    return model.startswith(("/", "~/"))


async def check_model(ctx: Context) -> Result:
    sources = model_sources(ctx)
    if not sources:
        return Result(NAME, WARN, "no profile and no running server names a model",
                      f"add a launch profile with its model_path to {ctx.file_name} and mark it known_good")
    paths = [path for path in sources if is_path(path)]
    found: dict[str, bool] = {}
    if paths:
        result = await ctx.run(Command.of(script(EXISTS, *paths), "look for the model paths"))
        answers = result.check("looking for the model paths").out.split()
        found = dict(zip(paths, (answer == "yes" for answer in answers)))
    described = [_describe(path, labels, found.get(path)) for path, labels in sources.items()]
    missing = [path for path in paths if not found.get(path)]
    if missing:
        return Result(NAME, FAIL, "; ".join(described), _fix(ctx, missing[0], sources[missing[0]]))
    return Result(NAME, OK, "; ".join(described))


def _describe(path: str, labels: list[str], exists: bool | None) -> str:
    where = ", ".join(labels)
    if exists is None:
        return f"{path} ({where}) is a Hugging Face id, not checked"
    return f"{path} ({where}) {'exists' if exists else 'does not exist on the host'}"


def _fix(ctx: Context, path: str, labels: list[str]) -> str:
    label = labels[0]
    if label.startswith("profile "):
        return (f"copy the model to {path} on the host, or set profiles.{label.split(' ', 1)[1]}.model_path in "
                f"{ctx.file_name} to where it is")
    if label.startswith("unit "):
        return f"copy the model to {path} on the host, or fix --model-path in ExecStart= of {label.split(' ', 1)[1]}"
    return f"restore {path} on the host before the server restarts: it will not start without it"
