"""Benchmarks (never part of ``make test``): ``python -m bench`` runs them all.

Each family is one module with ``run(quick=...) -> str`` (the printed tables)
and ``main(argv)``; :mod:`bench.__main__` keeps the registry, so a new family
(e.g. network round trips) is one module plus one line there.
"""
