"""What travels between Passe's processes, and the checks on it.

``wire`` is protocol v1's topics, envelopes and bodies (docs/protocol.md),
``codec`` views and events to plain data and back, ``codes`` room codes,
``text`` text from the network made safe to show and log, ``bounds`` what a
sender can make a process spend. Nothing here opens a socket or a file: it
imports only net's basics (the key pair), and every other net package builds
on it.
"""
