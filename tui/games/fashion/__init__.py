"""The fashion table: its screen (table.py) and the widgets only it uses."""
