"""Leaves shared by every package, importing none of them: reading the YAML files users write
(with the line of every value, for errors they can act on) and writing files atomically."""
