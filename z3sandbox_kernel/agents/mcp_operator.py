"""What the operator of ``z3sandbox mcp`` decides on the command line, apart from serving: the
ceilings a client's request must stay under, and who may reach the HTTP transport.

Ceilings: one flag per field of ``limits.Limits`` (``--max-wall-s``, made from ``LIMIT_FIELDS``;
by default each limit's default), ``--max-candidates`` and ``--max-models``.  The CPU and solver
timeout ceilings follow ``--max-wall-s`` up unless they are set themselves: a wall ceiling a
client could not use for want of CPU would be no ceiling at all.  A request over a ceiling is
refused with the flag that sets it (``wall_s 600 is over --max-wall-s 20``).

HTTP: the SDK checks Host and Origin (DNS rebinding) only for a literal loopback host, with any
port allowed.  Here every bind checks them, and allows only the bound address and its port (for a
loopback bind, ``localhost``, ``127.0.0.1`` and ``[::1]`` with that port too), plus
``--allow-host`` / ``--allow-origin``; a bind beyond loopback needs ``--allow-remote``.
"""

from __future__ import annotations

import argparse
import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contracts.limits import DEFAULT_LIMITS, LIMIT_FIELDS, Limits, number
from ..contracts.options import argparse_specs

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings

DEFAULT_MAX_CANDIDATES = 64
DEFAULT_MAX_MODELS = 100
# Run options the operator sets; a client sets the others.
OPERATOR_OPTIONS = ("isolation", "jobs", "record_scripts")
# Ceilings that rise with --max-wall-s unless set: CPU time and the solver's timeout fit in the wall.
FOLLOW_WALL = ("cpu_s", "timeout_s")
LOOPBACK_NAMES = ("localhost",)
# The names a loopback bind answers to besides its own address, each with the bound port.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


def ceiling_flag(name: str) -> str:
    """``wall_s`` -> ``--max-wall-s``: one operator flag per limit."""
    return "--max-" + name.replace("_", "-")


def over_ceiling(name: str, value: float, flag: str, ceiling: float) -> str:
    """``wall_s 600 is over --max-wall-s 20``: the refusal names what the client can change and
    the operator's flag that decided it."""
    return f"{name} {number(value)} is over {flag} {number(ceiling)}; ask for at most {number(ceiling)}"


@dataclass(frozen=True)
class Operator:
    """What the operator decided on the command line."""

    ceilings: Limits = DEFAULT_LIMITS  # the most a client may ask for, limit by limit
    max_candidates: int = DEFAULT_MAX_CANDIDATES
    isolation: str | None = None
    require: tuple[str, ...] = ()
    jobs: int | None = None
    record_dir: Path | None = None
    max_models: int = DEFAULT_MAX_MODELS
    record_scripts: bool = False

    def limits(self, asked: dict[str, Any]) -> Limits:
        """The limits of a request: what the client asked, each at most its ceiling (else an
        error naming the flag), and the default (capped by the ceiling) for what it did not ask."""
        values = {}
        for spec in LIMIT_FIELDS:
            ceiling = getattr(self.ceilings, spec.name)
            value = asked.get(spec.name)
            if value is not None and value > ceiling:
                raise ValueError(over_ceiling(spec.name, value, ceiling_flag(spec.name), ceiling))
            values[spec.name] = min(getattr(DEFAULT_LIMITS, spec.name), ceiling) if value is None else value
        return Limits(**values)

    def check_counts(self, count: int, models: int) -> None:
        """Candidates in the request and models asked per candidate, each under its ceiling."""
        if count > self.max_candidates:
            raise ValueError(over_ceiling("candidates (scripts times k)", count, "--max-candidates",
                                          self.max_candidates))
        if models > self.max_models:
            raise ValueError(over_ceiling("models", models, "--max-models", self.max_models))


def ceilings_from(given: dict[str, float | None]) -> Limits:
    """The ceilings from the flags given (None: not given): each limit's default, except that
    CPU and solver timeout rise to the wall ceiling when only that was raised."""
    values = {name: value for name, value in given.items() if value is not None}
    wall = values.get("wall_s")
    if wall is not None:
        for name in FOLLOW_WALL:
            values.setdefault(name, max(getattr(DEFAULT_LIMITS, name), wall))
    return Limits().replace(**values)


# --------------------------------------------------------------------------------- command line

def add_operator_flags(parser: argparse.ArgumentParser) -> None:
    """The operator's flags: run options, HTTP access, and one ceiling per limit."""
    for flags, keywords in argparse_specs("cli"):  # the operator's run options, from the options model
        if keywords["dest"] in OPERATOR_OPTIONS:
            parser.add_argument(*flags, **keywords)
    parser.add_argument("--require", action="append", default=[], metavar="LAYER",
                        help="an isolation layer that must be active, or no candidate runs (repeatable)")
    http = parser.add_argument_group("HTTP (streamable HTTP has no authentication)")
    http.add_argument("--allow-remote", action="store_true",
                      help="allow --http to bind beyond loopback (anyone who reaches it may run code "
                           "in the sandbox)")
    http.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                      help="a browser Origin allowed besides http://HOST:PORT itself, e.g. "
                           "https://app.example (repeatable)")
    http.add_argument("--allow-host", action="append", default=[], metavar="HOST:PORT",
                      help="a Host header allowed besides the bound HOST:PORT, e.g. the name clients "
                           "use for this machine (repeatable)")
    group = parser.add_argument_group("ceilings (a client may ask for less, never for more)")
    group.add_argument("--max-candidates", type=int, default=DEFAULT_MAX_CANDIDATES, metavar="N",
                       help=f"candidates in one call, scripts times k (default {DEFAULT_MAX_CANDIDATES})")
    group.add_argument("--max-models", type=int, default=DEFAULT_MAX_MODELS, metavar="N",
                       help=f"models asked per sat candidate (default {DEFAULT_MAX_MODELS})")
    for spec in LIMIT_FIELDS:
        unit = spec.metadata["unit"]
        default = number(getattr(DEFAULT_LIMITS, spec.name)) + (f" {unit}" if unit else "")
        follows = "; raised to --max-wall-s when that is higher" if spec.name in FOLLOW_WALL else ""
        group.add_argument(ceiling_flag(spec.name), dest=f"max_{spec.name}", metavar=(unit or "N").upper(),
                           type=int if spec.type in ("int", int) else float,
                           help=f"most {spec.name} a client may ask for: {spec.metadata['help']} "
                                f"(default {default}, the limit's default{follows})")


def operator_from(args: argparse.Namespace) -> Operator:
    for flag, value in (("--max-candidates", args.max_candidates), ("--max-models", args.max_models)):
        if value < 1:
            raise ValueError(f"{flag} {value}: must be at least 1")
    ceilings = ceilings_from({spec.name: getattr(args, f"max_{spec.name}") for spec in LIMIT_FIELDS})
    return Operator(ceilings, args.max_candidates, args.isolation, tuple(args.require), args.jobs,
                    args.record, args.max_models, bool(args.record_scripts))


# ---------------------------------------------------------------------------------------- HTTP

def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (loopback); ``[::1]:PORT`` for IPv6."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--http {text}: expected HOST:PORT")
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_port(host: str, port: int) -> str:
    """As a Host header writes it: ``[::1]:8000`` for IPv6."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def transport_security(address: tuple[str, int], allow_hosts: list[str],
                       allow_origins: list[str]) -> TransportSecuritySettings:
    """The SDK's Host/Origin check, on for every bind: the bound HOST:PORT and http://HOST:PORT,
    and for a loopback bind the names of loopback with the bound port too (a client told
    ``localhost`` reaches a server bound to 127.0.0.1; a page rebound by DNS sends its own name),
    plus what the operator added."""
    from mcp.server.transport_security import TransportSecuritySettings

    host, port = address
    names = [host, *(name for name in LOOPBACK_HOSTS if name != host)] if is_loopback(host) else [host]
    bound = [host_port(name, port) for name in names]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=[*bound, *allow_hosts],
                                     allowed_origins=[*(f"http://{name}" for name in bound), *allow_origins])


def check_bind(address: tuple[str, int], allow_remote: bool) -> str | None:
    """None for a loopback bind; a warning for one beyond it that the operator allowed; a
    ValueError for one they did not."""
    host, port = address
    if is_loopback(host):
        return None
    if not allow_remote:
        raise ValueError(f"--http {host_port(host, port)} is beyond loopback: anyone who reaches it may "
                         "run code in the sandbox, with no authentication; add --allow-remote to mean it")
    return (f"serving on {host_port(host, port)}, beyond loopback, with no authentication; only "
            "Host and Origin are checked")
