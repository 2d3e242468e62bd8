"""Settings for the whole suite."""

from __future__ import annotations

import os
import tempfile

# mDNS stays on loopback in tests, so that no test multicasts on the
# machine's real network (tests/net/netns.py lifts this inside the network
# namespaces a LAN test makes). Every process a test starts inherits it.
os.environ.setdefault("PASSE_MDNS_INTERFACES", "127.0.0.1")
# Keys made by tests never land in the user's data directory.
os.environ.setdefault("PASSE_DATA_DIR", tempfile.mkdtemp(prefix="passe-test-data-"))
