"""Stand-ins for SGLang's GPU dependencies (torch, triton, flashinfer, sgl_kernel, ...), shipped with the runner.

SGLang's argument stage (argparse, ``ServerArgs`` resolution, ``check_server_args``) asks its GPU packages a few
facts: is CUDA available, how many GPUs, how much memory each, which compute capability. Real torch answers the
memory question by creating a CUDA context, which allocates GPU memory on a host that is serving. These
stand-ins answer from given facts instead (mtptui reads them with ``nvidia-smi`` on the host), so the runner
(sglang_runner.py) never imports torch or a CUDA library: no context, no GPU memory, nothing loaded on a GPU.
Everything else is an inert placeholder: callable, subclassable, false, empty. The reported versions of the
replaced packages are the ones the SGLang wheel pins. Standard library only, like the runner; nothing of SGLang
is copied. The differential test (tests/test_flags_sglang_differential.py) checks lint against SGLang through
them, with the mission's host: 2 GPUs of 48 GB, compute capability 8.6.

``install()`` puts them in front of the import system; call it before importing sglang.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import re
import sys
import types

ROOTS = frozenset({"torch", "triton", "flashinfer", "sgl_kernel", "torchvision", "torchaudio", "tvm_ffi", "IPython",
                   "compressed_tensors", "cuda", "xgrammar", "llguidance", "outlines"})
# distributions reported as installed, at the SGLang wheel's pin. torch has no metadata on purpose: transformers
# then reads configs without torch (it only needs them as data), while SGLang reads torch.__version__.
DISTRIBUTIONS = ("triton", "flashinfer_python", "sglang-kernel", "sgl-kernel")
GPUS, GPU_MEMORY_GB, CAPABILITY, GPU_NAME = 2, 48.0, (8, 6), "NVIDIA RTX A6000"
CUDA_VERSION = "12.8"
# names a CUDA build of torch does not have (SGLang probes them with hasattr to detect other devices)
ABSENT = {"torch": frozenset({"npu", "musa", "mlu", "hpu", "sail", "_C._ROCm"})}
FALLBACK_VERSION = "0.0.0"


class Inert:
    """Any attribute, call, subscript or operation gives another Inert; false, empty, zero, hashable."""

    def __init__(self, name: str = "inert") -> None:
        object.__setattr__(self, "_name", name)

    def __getattr__(self, name: str) -> "Inert":
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Inert(f"{self._name}.{name}")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # used as a decorator: keep the function
        return Inert(f"{self._name}()")

    def __mro_entries__(self, bases):
        return (type(self._name.rsplit(".", 1)[-1], (), {}),)

    def __getitem__(self, key):
        return self

    def __or__(self, other):
        return self

    __ror__ = __or__

    def _same(self, *other):
        return self

    __neg__ = __pos__ = __abs__ = __invert__ = _same
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _same
    __floordiv__ = __rfloordiv__ = __mod__ = __pow__ = __and__ = __rand__ = _same

    def _false(self, other) -> bool:
        return False

    __lt__ = __le__ = __gt__ = __ge__ = _false

    def __bool__(self) -> bool:
        return False

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0

    def __int__(self) -> int:
        return 0

    __index__ = __int__

    def __float__(self) -> float:
        return 0.0

    def __hash__(self) -> int:
        return hash(self._name)

    def __eq__(self, other) -> bool:
        return self is other

    def __repr__(self) -> str:
        return f"<stand-in {self._name}>"

    def __get_pydantic_core_schema__(self, source, handler):
        """Used as a field type in a pydantic model: any value."""
        from pydantic_core import core_schema

        return core_schema.any_schema()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


class InertModule(types.ModuleType):
    """A stand-in module: every name it lacks is an Inert; it is a package, so submodules import too."""

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__") or name in ABSENT.get(self.__name__, ()):
            raise AttributeError(name)
        value = Inert(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


@functools.lru_cache(maxsize=1)
def pinned_versions() -> dict[str, str]:
    """The versions sglang's wheel pins (``torch==2.11.0``), by normalized distribution name."""
    pins = {}
    for requirement in importlib.metadata.requires("sglang") or []:
        match = re.match(r"([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([^;\s]+)", requirement)
        if match:
            pins[_normal(match.group(1))] = match.group(2)
    return pins


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class _Distribution(importlib.metadata.Distribution):
    def __init__(self, name: str, version: str) -> None:
        self._meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"

    def read_text(self, filename):
        return self._meta if filename in ("METADATA", "PKG-INFO") else None

    def locate_file(self, path):
        return path


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports every module under ROOTS as a stand-in, and reports their distributions as installed."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".", 1)[0] not in ROOTS:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = InertModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module) -> None:
        SPECIFICS.get(module.__name__, lambda m: None)(module)

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        wanted = _normal(context.name) if context.name else None
        names = [name for name in DISTRIBUTIONS if wanted in (None, _normal(name))]
        pins = pinned_versions() if names else {}
        return iter([_Distribution(name, pins.get(_normal(name), FALLBACK_VERSION)) for name in names])


class _Properties:
    """What ``torch.cuda.get_device_properties`` answers."""

    def __init__(self) -> None:
        self.name = GPU_NAME
        self.total_memory = int(GPU_MEMORY_GB * (1 << 30))
        self.major, self.minor = CAPABILITY
        self.multi_processor_count = 84
        self.uuid = "GPU-00000000-0000-0000-0000-000000000000"
        self.gcnArchName = ""


class _Device:
    """``torch.device("cuda:0")``: its type and index."""

    def __init__(self, spec="cuda", index=None) -> None:
        text = str(spec)
        self.type, _, number = text.partition(":")
        self.index = int(number) if number else index

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"


def _torch(module) -> None:
    module.__version__ = pinned_versions().get("torch", FALLBACK_VERSION)

    class dtype:  # noqa: N801 - torch's spelling
        def __init__(self, name: str, itemsize: int) -> None:
            self.name, self.itemsize = name, itemsize

        def __repr__(self) -> str:
            return f"torch.{self.name}"

    module.dtype = dtype
    for name, size in (("float32", 4), ("float16", 2), ("bfloat16", 2), ("float64", 8), ("int8", 1), ("uint8", 1),
                       ("int32", 4), ("int64", 8), ("bool", 1), ("float8_e4m3fn", 1), ("float8_e5m2", 1),
                       ("float8_e4m3fnuz", 1), ("float4_e2m1fn_x2", 1), ("int16", 2)):
        setattr(module, name, dtype(name, size))
    module.float, module.half, module.long, module.int = module.float32, module.float16, module.int64, module.int32
    module.Tensor = type("Tensor", (), {})
    module.device = _Device
    module.Size = tuple
    for name in ("version", "cuda", "library"):  # real torch imports these with itself
        setattr(module, name, importlib.import_module(f"torch.{name}"))


def _torch_cuda(module) -> None:
    module.is_available = lambda: True
    module.device_count = lambda: GPUS
    module.get_device_properties = lambda device=None: _Properties()
    module.get_device_capability = lambda device=None: CAPABILITY
    module.get_device_name = lambda device=None: GPU_NAME
    module.mem_get_info = lambda device=None: (int(GPU_MEMORY_GB * (1 << 30)),) * 2
    module.current_device = lambda: 0
    module.is_bf16_supported = lambda *a, **k: True


def _torch_version(module) -> None:
    module.cuda, module.hip, module.xpu = CUDA_VERSION, None, None
    module.__version__ = pinned_versions().get("torch", FALLBACK_VERSION)


class _Library:
    """``torch.library.Library``: registrations are accepted and dropped."""

    m = None

    def __init__(self, *args, **kwargs) -> None:
        pass

    def define(self, *args, **kwargs) -> None:
        pass

    def impl(self, *args, **kwargs) -> None:
        pass


def _torch_library(module) -> None:
    module.Library = _Library


def _versioned(distribution: str):
    def apply(module) -> None:
        module.__version__ = pinned_versions().get(distribution, FALLBACK_VERSION)
    return apply


def _triton(module) -> None:
    module.__version__ = pinned_versions().get("triton", FALLBACK_VERSION)
    target = types.SimpleNamespace(backend="cuda", arch=CAPABILITY[0] * 10 + CAPABILITY[1], warp_size=32)
    runtime = importlib.import_module("triton.runtime")
    runtime.driver = types.SimpleNamespace(active=types.SimpleNamespace(get_current_target=lambda: target))
    module.runtime = runtime


SPECIFICS = {
    "torch": _torch,
    "torch.cuda": _torch_cuda,
    "torch.version": _torch_version,
    "torch.library": _torch_library,
    "triton": _triton,
    "flashinfer": _versioned("flashinfer-python"),
    "sgl_kernel": _versioned("sglang-kernel"),
    "torchvision": _versioned("torchvision"),
}


def install(gpus: int | None = None, gpu_memory_gb: float | None = None,
            capability: tuple[int, int] | None = None, gpu_name: str | None = None) -> None:
    """Put the stand-ins first on the import path (optionally with other GPU facts); idempotent."""
    global GPUS, GPU_MEMORY_GB, CAPABILITY, GPU_NAME
    GPUS = gpus if gpus is not None else GPUS
    GPU_MEMORY_GB = gpu_memory_gb if gpu_memory_gb is not None else GPU_MEMORY_GB
    CAPABILITY = capability if capability is not None else CAPABILITY
    GPU_NAME = gpu_name if gpu_name is not None else GPU_NAME
    if not any(isinstance(finder, Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, Finder())
