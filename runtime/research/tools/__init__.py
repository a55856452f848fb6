"""The research tools. Only ``runtime.research.adapter`` imports this package (§3.1, R-RS-4)."""
