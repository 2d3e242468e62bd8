"""The LAN pieces: how processes reach each other.

``transport`` is the MQTT link that comes back by itself, ``broker`` the
embedded broker (a child process), ``discovery`` rooms advertised and found
by mDNS, ``lifeline`` how those child processes know to stop. They know the
protocol's envelopes and topics, never a game or a room's rules.
"""
