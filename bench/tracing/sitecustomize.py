"""Timestamps of a replicated move in every process (``python -m
bench.move_trace``): put on ``PYTHONPATH`` with ``PASSE_TRACE=1``, Python
loads it at start-up (the ``site`` module's hook) in the benchmark's own
process and in each seat's, and it wraps a few methods of the authority,
the seat, the voter's driver, its file and the MQTT link so that each entry
(``>``) and exit (``<``) is noted with ``time.perf_counter_ns()``: on Linux
that is CLOCK_MONOTONIC, one clock for every process of the machine. At the
process's exit the notes go to ``$PASSE_TRACE_DIR/ev-PID.json``. Each
wrapped call costs a few microseconds, so the traced move is slower than
an untraced one: read where the time goes, not how much there is."""

from __future__ import annotations

import os

if os.environ.get("PASSE_TRACE"):
    import atexit
    import builtins
    import functools
    import importlib.abc
    import importlib.util
    import inspect
    import json
    import sys
    import time
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any

    _notes: list[tuple[int, str]] = []
    _clock = time.perf_counter_ns

    def _wrap(owner: type, name: str, label: str) -> None:
        method = owner.__dict__[name]
        if inspect.iscoroutinefunction(method):

            @functools.wraps(method)
            async def traced_async(*args: Any, **kwargs: Any) -> Any:
                _notes.append((_clock(), label + ">"))
                try:
                    return await method(*args, **kwargs)
                finally:
                    _notes.append((_clock(), label + "<"))

            setattr(owner, name, traced_async)
            return

        @functools.wraps(method)
        def traced(*args: Any, **kwargs: Any) -> Any:
            _notes.append((_clock(), label + ">"))
            try:
                return method(*args, **kwargs)
            finally:
                _notes.append((_clock(), label + "<"))

        setattr(owner, name, traced)

    # module -> (class, method) pairs: the steps of a move, as named in
    # docs/benchmarks.md ("Where a replicated move's time goes").
    TRACED: dict[str, list[tuple[str, str]]] = {
        "net.peer.remote": [
            ("RemoteTable", name)
            for name in ("submit", "_on_message", "_on_update", "_apply_update")
        ],
        "net.election.driver": [
            ("VoterDriver", "_on_message"),
            ("VoterDriver", "send"),
            ("FileStorage", "_append"),
        ],
        "net.authority.authority": [
            ("Authority", name) for name in ("_on_message", "_on_act", "_save", "_send_update")
        ],
        "net.lan.transport": [("MqttLink", "publish_now")],
    }

    class _Tracer(importlib.abc.MetaPathFinder):
        def find_spec(
            self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
        ) -> ModuleSpec | None:
            if fullname not in TRACED:
                return None
            sys.meta_path.remove(self)
            try:
                spec = importlib.util.find_spec(fullname)
            finally:
                sys.meta_path.insert(0, self)
            if spec is None or spec.loader is None:
                return spec
            loader: Any = spec.loader
            execute = loader.exec_module

            def exec_module(module: ModuleType) -> None:
                execute(module)
                for owner, name in TRACED[fullname]:
                    _wrap(getattr(module, owner), name, f"{owner}.{name}")

            loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, _Tracer())

    # A seat's process prints "move SECONDS" when its move shows
    # (bench/net_peer.py): that is the move's end.
    _print = builtins.print

    def _print_noting_moves(*args: Any, **kwargs: Any) -> None:
        if args and isinstance(args[0], str) and args[0].startswith("move "):
            _notes.append((_clock(), "shown"))
        _print(*args, **kwargs)

    builtins.print = _print_noting_moves

    def _write() -> None:
        directory = os.environ.get("PASSE_TRACE_DIR", ".")
        with open(os.path.join(directory, f"ev-{os.getpid()}.json"), "w") as file:
            json.dump({"argv": sys.argv, "notes": _notes}, file)

    atexit.register(_write)
