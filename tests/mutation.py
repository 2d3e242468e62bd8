"""``make mutation``: mutation testing of the code where a silent bug costs
most (issue 23; docs/testing.md says how to read it).

mutmut 3 (configured in pyproject.toml, ``[tool.mutmut]``) copies ``net/``
and ``core/`` into ``mutants/``, rewrites each function of the files it
mutates so that one mutant at a time can be switched on, and runs, for each
mutant, the selected fast tests that reach its function. This module picks
the mutants (whole modules of ``net/``, the scoring functions of each game),
runs mutmut, and reports per module: killed, survived, and the survivors
judged equivalent in ``docs/mutation-equivalents.txt`` (one line each: the
mutant's id, then why no test can tell it from the original).

    python -m tests.mutation run [--workers N] [--again] [MODULE ...]
    python -m tests.mutation report [MODULE ...]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
EQUIVALENTS = ROOT / "docs" / "mutation-equivalents.txt"
TARGET = 0.90
SEP = "ǁ"  # mutmut's separator in a method's mangled name


def _methods(module: str, cls: str, *names: str) -> list[str]:
    return [f"{module}.x{SEP}{cls}{SEP}{name}__mutmut_*" for name in names]


def _functions(module: str, *names: str) -> list[str]:
    return [f"{module}.x_{name}__mutmut_*" for name in names]


# Each measured file and the mutants of it that count: a whole module of
# net/, and only the scoring of each game's state (its rules are the
# property tests' business, see docs/testing.md).
MODULES: dict[str, list[str]] = {
    "net/protocol/wire.py": ["net.protocol.wire.*"],
    "net/protocol/codec.py": ["net.protocol.codec.*"],
    "net/authority/rooms.py": ["net.authority.rooms.*"],
    "net/authority/authority.py": ["net.authority.authority.*"],
    "net/peer/remote.py": ["net.peer.remote.*"],
    "net/election/node.py": ["net.election.node.*"],
    "net/peer/dealcheck.py": ["net.peer.dealcheck.*"],
    "net/peer/failover.py": ["net.peer.failover.*"],
    "net/authority/replication.py": ["net.authority.replication.*"],
    "net/election/driver.py": ["net.election.driver.*"],
    # The trust boundary's small pieces (the brief: planted bugs in net/):
    # a name or text from the network cleaned, a code read, a flood bounded,
    # an election's or a dealer's message checked.
    "net/protocol/text.py": ["net.protocol.text.*"],
    "net/protocol/codes.py": ["net.protocol.codes.*"],
    "net/protocol/bounds.py": ["net.protocol.bounds.*"],
    "net/election/messages.py": ["net.election.messages.*"],
    "net/dealer/messages.py": ["net.dealer.messages.*"],
    # The embedded broker faces the LAN itself; the pins keep a room's key.
    "net/lan/broker.py": ["net.lan.broker.*"],
    "net/peer/pins.py": ["net.peer.pins.*"],
    # What every signature, box and share goes through, and every key file.
    "net/identity.py": ["net.identity.*"],
    "net/election/shares.py": ["net.election.shares.*"],
    "net/files.py": ["net.files.*"],
    # A dealer serves any room that asks; a watcher's view is public.
    "net/dealer/service.py": ["net.dealer.service.*"],
    # What a dealer keeps of its rooms: read back from its disk after a
    # restart, and from a room's replicated log by the dealer that takes
    # its table over (SavedRoom.dealt_as).
    "net/dealer/kept.py": ["net.dealer.kept.*"],
    # The table in the authority: each action checked by the engine, and
    # each seat's view and events sent to that seat alone.
    "net/authority/table.py": ["net.authority.table.*"],
    "net/peer/watch.py": ["net.peer.watch.*"],
    # What anyone on the LAN can advertise: the adverts read and checked
    # (the zeroconf I/O around them is tests/net/test_discovery.py's, live).
    "net/lan/discovery.py": _functions(
        "net.lan.discovery",
        "service_name",
        "_valid_text",
        "_small_int",
        "_ordered_addresses",
        "check_advert",
        "advert_from_info",
        "mdns_interfaces",
        "local_addresses",
    ),
    # Where voters that lost each other meet: read from what anyone may
    # retain on a room's topics.
    "net/election/survey.py": ["net.election.survey.*"],
    # A standby broker's address as other machines wrote it, and the
    # authority's announcement.
    "net/election/topics.py": ["net.election.topics.*"],
    # A dealer's answer: anyone may run a dealer or write to an asker's inbox.
    "net/dealer/client.py": ["net.dealer.client.*"],
    # A bot's seat from its own process, and a lobby nobody decides in (a
    # headless host, a dealer's room). follow_to_end, a stepped-down host
    # watching its room, runs only in the processes of the failover tests.
    # What a broker's retained messages say of a room this machine sat in
    # (the home screen's offer to rejoin): read from what anyone may write.
    # Its I/O around it (held_seat and the looks at several brokers) is
    # tests/net/test_rejoin.py's, through Mosquitto.
    "net/peer/rejoin.py": [
        *_methods(
            "net.peer.rejoin",
            "SeatLook",
            "__init__",
            "topics",
            "complete",
            "read",
            "_read_state",
            "_read_announce",
            "answer",
        ),
        *_methods("net.peer.rejoin", "HeldSeat", "target"),
        *_functions("net.peer.rejoin", "_ended_away"),
    ],
    "net/peer/headless.py": _functions(
        "net.peer.headless", "emit", "play_with_bot", "fill_and_start", "over_or_stepped_down"
    ),
    # The link every message goes through: what it drops (oversized, on a
    # topic not subscribed), which broker it goes to next, its bounds.
    "net/lan/transport.py": ["net.lan.transport.*"],
    # What a host is told and where its room is shown and advertised (its
    # rooms opened and resumed through real brokers are the networked
    # tests', whose child processes mutmut does not see).
    # (HostedRoom's properties too, which mutmut does not mutate: decorated.)
    "net/authority/host.py": [
        *_functions(
            "net.authority.host",
            "lan_address",
            "broker_binds",
            "_bindable",
            "_is_loopback",
            "answers",
            "reachable_addresses",
            "_ipv4",
            "_ipv4_of",
            "table_moved",
            "claim_moved_room",
            "shown_address",
            "_wait_until_free",
            "room_advert",
            "advert_phase",
            "default_host_name",
        ),
    ],
    "core/passpass/state.py": _methods(
        "core.passpass.state",
        "PassPassState",
        "round_points",
        "pass_pass_count",
        "_check_pass_pass",
        "_end_round",
        "_represent",
        "_score_round",
        "_final_ranking",
        "_finish",
    ),
    "core/dominoes/state.py": _methods("core.dominoes.state", "DominoesState", "_end_round"),
    "core/fashion/state.py": [
        *_functions("core.fashion.state", "season_problem", "season_points"),
        *_methods("core.fashion.state", "FashionState", "_finish"),
    ],
}

KILLED = {1, 3, 36, 37, -24, 24, 152, 255}  # failed, errored, timed out, type error
SURVIVED = {0}
NO_TESTS = {5, 33}


@dataclass
class Tally:
    killed: int = 0
    survived: list[str] = field(default_factory=list)
    equivalent: list[str] = field(default_factory=list)
    untested: list[str] = field(default_factory=list)
    unchecked: int = 0

    @property
    def score(self) -> float | None:
        judged = self.killed + len(self.survived) + len(self.untested)
        return self.killed / judged if judged else None


def equivalents() -> dict[str, str]:
    """Triaged survivors: ``{mutant id: reason}``."""
    found: dict[str, str] = {}
    if not EQUIVALENTS.exists():
        return found
    for line in EQUIVALENTS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            found[name] = reason.strip()
    return found


def tally(module: str, judged: dict[str, str]) -> Tally:
    result = Tally()
    meta = MUTANTS / f"{module}.meta"
    if not meta.exists():
        return result
    exit_codes: dict[str, int | None] = json.loads(meta.read_text())["exit_code_by_key"]
    for name, code in sorted(exit_codes.items()):
        if not any(fnmatch.fnmatchcase(name, pattern) for pattern in MODULES[module]):
            continue
        if code is None:
            result.unchecked += 1
        elif code in KILLED:
            result.killed += 1
        elif code in SURVIVED:
            (result.equivalent if name in judged else result.survived).append(name)
        elif code in NO_TESTS:
            (result.equivalent if name in judged else result.untested).append(name)
        else:  # suspicious, segfault: not a kill that can be trusted
            result.survived.append(name)
    return result


def report(modules: list[str]) -> int:
    judged = equivalents()
    print(f"{'module':<26} {'killed':>6} {'surv.':>6} {'no test':>7} {'equiv.':>6} {'score':>6}")
    below = False
    for module in modules:
        counts = tally(module, judged)
        score = counts.score
        if score is None:
            print(f"{module:<26} not measured")
            continue
        below |= score < TARGET
        print(
            f"{module:<26} {counts.killed:>6} {len(counts.survived):>6} "
            f"{len(counts.untested):>7} {len(counts.equivalent):>6} {score:>6.1%}"
            + (f"  ({counts.unchecked} not run yet)" if counts.unchecked else "")
        )
        for name in counts.survived:
            print(f"    survived: {name}")
        for name in counts.untested:
            print(f"    no test reaches it: {name}")
    print(f"\nTarget: {TARGET:.0%} killed per module (equivalent mutants left out).")
    print("See one: .venv/bin/mutmut show ID; judge it in docs/mutation-equivalents.txt.")
    return 1 if below else 0


def pending(module: str) -> list[str]:
    """The mutants of ``module`` not run yet, or not killed when last run."""
    meta = MUTANTS / f"{module}.meta"
    if not meta.exists():
        return []
    exit_codes: dict[str, int | None] = json.loads(meta.read_text())["exit_code_by_key"]
    return [
        name
        for name, code in sorted(exit_codes.items())
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in MODULES[module])
        and code not in KILLED
    ]


def run(modules: list[str], workers: int, *, again: bool) -> int:
    # mutmut runs again every mutant named on its command line (a pattern
    # names all of a module's): by default only those not yet killed are
    # named, so that a run stopped midway goes on where it was (issue 23).
    # A module never run yet (no meta file: just added, or its mutants
    # removed to be made again) is named by its patterns: run beside
    # another module's survivors, it was left out and "not measured".
    names = [
        name
        for module in modules
        for name in (
            pending(module)
            if (MUTANTS / f"{module}.meta").exists() and not again
            else MODULES[module]
        )
    ]
    if not names:
        names = [pattern for module in modules for pattern in MODULES[module]]
    command = [str(Path(sys.executable).with_name("mutmut")), "run", "--max-children"]
    subprocess.run([*command, str(workers), *names], cwd=ROOT, check=False)
    return report(modules)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutation")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("run", "report"):
        command = commands.add_parser(name)
        command.add_argument("modules", nargs="*", metavar="MODULE", help=", ".join(MODULES))
        if name == "run":
            command.add_argument("--workers", type=int, default=1)
            command.add_argument(
                "--again", action="store_true", help="run every mutant again, killed or not"
            )
    args = parser.parse_args(argv)
    modules = args.modules or list(MODULES)
    unknown = [module for module in modules if module not in MODULES]
    if unknown:
        parser.error(f"not measured: {', '.join(unknown)} (one of {', '.join(MODULES)})")
    if args.command == "run":
        return run(modules, args.workers, again=args.again)
    return report(modules)


if __name__ == "__main__":
    sys.exit(main())
