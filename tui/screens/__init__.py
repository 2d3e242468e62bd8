"""Screens of the Passe app: one screen per module."""
