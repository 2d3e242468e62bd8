"""Widgets of the Passe table: one class per module."""
