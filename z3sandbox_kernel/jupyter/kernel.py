"""The "Z3 Sandbox (Python 3)" kernel: ipykernel's IPythonKernel with the extension preloaded.

Launched by its kernelspec as ``python -m z3sandbox_kernel.jupyter.kernel -f {connection_file}``.
Its ``kernel_info`` reply carries one extra key that the labextension's status bar reads::

    "z3sandbox": {
      "version": "0.1.0",                  # the package version
      "level": "kernel" | "process" | null, # null: the sandbox could not start
      "isolation": "kernel: userns netns pidns landlock(ABI 7) seccomp",   # one line
      "layers": [{"name", "active", "detail", "error"}, ...]              # IsolationReport
    }

It also answers one message of its own on the control channel, which ipykernel serves in its own
thread while a cell runs: the labextension's Stop button on a running (or queued) row::

    z3sandbox_stop_request  {"control": DISPLAY_ID, "index": 3}   # DISPLAY_ID: the live document's
    z3sandbox_stop_reply    {"status": "ok", "stopped": true}     # false: not running (any more)

Front ends without the labextension never send it; their Stop ends the whole run, as before.
The request publishes no busy/idle status: ipykernel wraps every control message in a busy/idle
pair on IOPub, and JupyterLab takes any "idle" as the whole kernel's state, so a Stop while the
cell still runs would show the kernel Idle until the cell's next message.  The labextension
disposes of the request on its reply instead of waiting for that idle.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Literal, TypedDict, cast

from ipykernel.ipkernel import IPythonKernel
from ipykernel.kernelapp import IPKernelApp
from traitlets import Type
from zmq.eventloop.zmqstream import ZMQStream

from ..contracts._version import __version__
from ..presentation.phrases import isolation_summary
from ..protocol import LayerReport
from .config import Z3Sandbox


class Z3SandboxKernel(IPythonKernel):
    implementation = "z3sandbox"
    implementation_version = __version__
    control_msg_types = [*IPythonKernel.control_msg_types, "z3sandbox_stop_request"]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        # Preloaded here rather than through the app's config, so that every way of starting
        # this kernel class has the magic, whatever the user's `extensions` setting.
        assert self.shell is not None  # IPythonKernel makes its shell in __init__
        self.shell.extension_manager.load_extension("z3sandbox_kernel")

    @property
    def banner(self) -> str:  # type: ignore[override]
        return (
            f"{self.shell.banner if self.shell else ''}"
            f"Z3 Sandbox kernel {__version__}: %%z3sandbox runs a cell in fresh, limited, isolated "
            f"processes (%%z3sandbox? for the options).\n"
        )

    def _publish_status(self, status: str, channel: str, parent: dict[str, Any] | None = None) -> None:
        """No busy/idle for a stop request (see the module docstring): the cell's own status
        stands, Busy until the cell ends."""
        message = parent or self.get_parent(channel)
        if (message or {}).get("header", {}).get("msg_type") == "z3sandbox_stop_request":
            return
        super()._publish_status(status, channel, parent)

    def z3sandbox_stop_request(self, stream: ZMQStream, ident: list[bytes], parent: dict[str, Any]) -> None:
        """Stop one candidate of the run going now (see the module docstring)."""
        from .magic import magics_of

        content = parent.get("content") or {}
        magics = magics_of(self.shell)
        stopped = False
        index = content.get("index")
        if magics is not None and isinstance(index, int) and not isinstance(index, bool):
            stopped = magics.stop_candidate(content.get("control"), index)
        assert self.session is not None
        self.session.send(stream, "z3sandbox_stop_reply", {"status": "ok", "stopped": stopped},
                          parent, ident)

    @property
    def kernel_info(self) -> dict[str, object]:
        info: dict[str, object] = dict(super().kernel_info)
        info["z3sandbox"] = self.z3sandbox_info()
        return info

    def z3sandbox_info(self) -> Z3SandboxInfo:
        """The ``z3sandbox`` key of the kernel_info reply (see the module docstring)."""
        from .magic import magics_of

        info: Z3SandboxInfo = {"version": __version__, "level": None, "layers": []}
        magics = magics_of(self.shell)
        if magics is None:
            return {**info, "isolation": "unavailable: the z3sandbox extension is not loaded"}
        try:
            report = magics.sandbox(magics.options.isolation).isolation()
        except Exception as exc:  # reported to the frontend, not raised into the kernel
            return {**info, "isolation": f"unavailable: {type(exc).__name__}: {exc}"}
        return {
            **info,
            "level": report.get("level"),
            "isolation": isolation_summary(report),
            "layers": list(report.get("layers", [])),
        }


class _Z3SandboxInfoRequired(TypedDict):
    version: str
    level: Literal["kernel", "process"] | None
    layers: list[LayerReport]


class Z3SandboxInfo(_Z3SandboxInfoRequired, total=False):
    """The ``z3sandbox`` key of the kernel_info reply: its isolation, or why it is unavailable."""

    isolation: str


class Z3SandboxKernelApp(IPKernelApp):
    name = "z3sandbox-kernel"
    # Z3Sandbox options in --help-all and generated config files
    classes = [*IPKernelApp.classes, cast(Any, Z3Sandbox)]
    kernel_class = Type(
        Z3SandboxKernel, klass=IPythonKernel, help="the kernel class to start"
    ).tag(config=True)


def main() -> None:
    # As ipykernel_launcher does: keep the working directory off sys.path while the kernel loads
    # (InteractiveShellApp.init_path puts it back for user code).
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]
    Z3SandboxKernelApp.launch_instance()


if __name__ == "__main__":
    # Run as a module: import this file under its package name, so there is one kernel class.
    from z3sandbox_kernel.jupyter.kernel import main as _main

    _main()
