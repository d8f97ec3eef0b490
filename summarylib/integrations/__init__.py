"""Integrations with ML frameworks; each imports its framework lazily, inside its own module."""
