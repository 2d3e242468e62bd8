"""The authority: the one process that holds a room's table and deck.

``authority`` runs a room (admission, seats, moves, sealed views), ``table``
is its game session, ``rooms`` its file on disk for resume, ``replication``
its saves replicated to the room's voters (net/election), ``host`` hosting a
room on a broker with its advert. It may use the protocol, the LAN pieces
and the election; never a peer's side.
"""
