"""Dealers (issue 20): non-playing authorities that serve rooms.

``messages`` is their protocol, ``service`` the ``passe dealer`` process,
``client`` how ``passe host --dealer`` asks one for a room.
"""
