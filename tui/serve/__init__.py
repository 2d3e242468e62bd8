"""``passe serve --ssh``: an SSH server where every session is a ``passe``
process on its own pseudo-terminal (see ``docs/ssh.md`` for why)."""
