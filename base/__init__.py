"""What every layer of rcs may import: exit statuses and the distribution's name (imports nothing of rcs)."""
