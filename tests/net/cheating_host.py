"""``passe`` with an authority that cheats: for tests only (issue 20's
acceptance, "Cheating authority"; tests/net/test_cheating_authority.py).

Run as ``python -m tests.net.cheating_host CHEAT passe-arguments…``: the
same command line as ``passe host …``, its room run by a subclass of the
real :class:`~net.authority.authority.Authority` that cheats in one way, the seed, its
commitment and the revealed record all honest:

* ``swap``: after move SWAP_AT, the first two people's hands exchange a
  piece, and the game goes on with it (the host's own state is changed);
* ``deal``: at the deal, the first person is dealt a piece of a bot's hand
  (and the bot one of theirs), and the game is played with that deal.

Nothing in the product reads any of this: the subclass replaces the class
:mod:`net.authority.host` opens rooms with, in this process only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from core.engine import Event
from net.authority import host
from net.authority.authority import BOT, Authority
from net.authority.table import HUMAN

SWAP_AT = 4  # the move after which ``swap`` cheats


def exchange(state: Any, first: int, second: int) -> None:
    """The first piece of two seats' hands changes hands (every game keeps
    hands as sorted lists of piece ids)."""
    hands = state.hands
    hands[first][0], hands[second][0] = hands[second][0], hands[first][0]
    hands[first].sort()
    hands[second].sort()


class SwappingAuthority(Authority):
    """Swaps a piece between the first two people's hands after SWAP_AT."""

    def _on_table_change(self, events: Sequence[Event]) -> None:
        if self.seq + 1 == SWAP_AT and self.table is not None:
            people = [n for n, slot in enumerate(self.seats) if slot.kind == HUMAN]
            exchange(self.table.state, people[0], people[1])
            print('{"event": "cheated", "how": "swap"}', flush=True)
        super()._on_table_change(events)


class DealingAuthority(Authority):
    """Deals the first person a piece of a bot's hand, before anyone sees it."""

    _dealt = False

    def _send_update(self, seat: int, *, base: int, **options: Any) -> None:
        # The first update goes out at the deal (start_game), before any move.
        if not self._dealt and self.table is not None and self.seq == 0:
            self._dealt = True
            person = next(n for n, slot in enumerate(self.seats) if slot.kind == HUMAN)
            bot = next(n for n, slot in enumerate(self.seats) if slot.kind == BOT)
            exchange(self.table.state, person, bot)
            print('{"event": "cheated", "how": "deal"}', flush=True)
        super()._send_update(seat, base=base, **options)


CHEATS: dict[str, type[Authority]] = {"swap": SwappingAuthority, "deal": DealingAuthority}


def main(argv: Sequence[str]) -> int:
    cheat, *passe_args = argv
    vars(host)["Authority"] = CHEATS[cheat]  # the class host.py makes its room's with
    from tui.cli import main as passe

    return passe(passe_args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
