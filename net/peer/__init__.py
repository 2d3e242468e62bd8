"""A peer: a seat's (or a watcher's) side of a networked room.

``remote`` joins by code and plays, ``client`` is the one interface the TUI
talks to a table through, ``watch`` follows a table without a seat,
``dealcheck`` replays the record at the end, ``pins`` and ``rejoin`` are what
a peer remembers of rooms, ``headless`` a bot in a process of its own, and
``failover`` the seat's voter, which becomes the room's authority when it wins
an election (so a peer may build on net/authority, never the other way).
"""
